// SPDX-License-Identifier: Apache-2.0
#include "db/stop_signal.hpp"

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

#include <stdexcept>

namespace restcache {

stop_signal::stop_signal() {
  if (pipe2(fds_, O_CLOEXEC | O_NONBLOCK) != 0)
    throw std::runtime_error("stop_signal: pipe failed");
}

stop_signal::~stop_signal() {
  close(fds_[0]);
  close(fds_[1]);
}

void stop_signal::stop() noexcept {
  stopping_.store(true, std::memory_order_release);
  char one = 1;
  [[maybe_unused]] auto n = write(fds_[1], &one, 1);
}

bool stop_signal::pause(std::chrono::milliseconds d) const {
  pollfd p{fds_[0], POLLIN, 0};
  ::poll(&p, 1, static_cast<int>(d.count()));
  return !stopping();
}

} // namespace restcache
