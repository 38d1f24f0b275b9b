// SPDX-License-Identifier: Apache-2.0
#pragma once

// A log destination: stderr, or a file opened for appending that can be
// reopened by its path, so logrotate can move it away and send SIGHUP.
// spdlog 1.10's file sinks cannot reopen; log_file_sink and access_log
// write through this instead.

#include <cstddef>
#include <mutex>
#include <string>

namespace restcache::logging {

class log_file {
public:
  /// Empty path: stderr. Else opens (creates) the file for appending;
  /// throws std::runtime_error naming the path and the reason.
  explicit log_file(std::string path);
  ~log_file();
  log_file(const log_file&) = delete;
  log_file& operator=(const log_file&) = delete;

  /// Writes all of it (one write(2) for a line; O_APPEND keeps lines whole
  /// between writers). Errors are ignored: a full disk must not stop serving.
  void write(const char* data, size_t size) noexcept;
  /// Opens the path again and switches to the new file (after logrotate
  /// renamed the old one). On failure keeps writing to the old one and
  /// returns the reason; a no-op for stderr.
  std::string reopen();

  const std::string& path() const noexcept { return path_; }

private:
  std::mutex mtx_; ///< guards fd_ against a reopen while writing
  std::string path_;
  int fd_ = 2;
};

} // namespace restcache::logging
