// SPDX-License-Identifier: Apache-2.0
#include "logging/log_file.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <stdexcept>

namespace restcache::logging {

namespace {

int open_append(const std::string& path) {
  return ::open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0640);
}

} // namespace

log_file::log_file(std::string path) : path_(std::move(path)) {
  if (path_.empty())
    return;
  fd_ = open_append(path_);
  if (fd_ < 0)
    throw std::runtime_error("cannot open log file " + path_ + ": " + std::strerror(errno));
}

log_file::~log_file() {
  if (fd_ > 2)
    ::close(fd_);
}

void log_file::write(const char* data, size_t size) noexcept {
  std::lock_guard lk{mtx_};
  while (size > 0) {
    auto n = ::write(fd_, data, size);
    if (n < 0 && errno == EINTR)
      continue;
    if (n <= 0)
      return;
    data += n;
    size -= static_cast<size_t>(n);
  }
}

std::string log_file::reopen() {
  if (path_.empty())
    return {};
  int fresh = open_append(path_);
  if (fresh < 0)
    return std::strerror(errno);
  std::lock_guard lk{mtx_};
  ::close(fd_);
  fd_ = fresh;
  return {};
}

} // namespace restcache::logging
