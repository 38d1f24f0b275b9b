// SPDX-License-Identifier: Apache-2.0
#pragma once

// The daemon's logging: spdlog, asynchronous (one background thread; a
// full queue overwrites the oldest message rather than blocking a request),
// text or JSON lines, to stderr or a file; optionally an access log. SIGHUP
// calls reopen() so logrotate can move the files away.

#include <memory>
#include <string>

#include "logging/access_log.hpp"
#include "logging/log_file.hpp"

namespace restcache::logging {

struct log_options {
  std::string level = "info";
  std::string format = "text"; ///< text | json
  std::string file;            ///< empty: stderr
  bool access = false;
  std::string access_file;     ///< empty: where the log goes
};

class log_setup {
public:
  /// Installs the default spdlog logger. Throws std::runtime_error when a
  /// file cannot be opened.
  explicit log_setup(const log_options& opts);
  ~log_setup(); // writes what is queued, stops the background threads
  log_setup(const log_setup&) = delete;
  log_setup& operator=(const log_setup&) = delete;

  /// Reopens the files (SIGHUP). Returns the problems, empty when none.
  std::string reopen();
  /// Null unless log.access.
  access_log* access() const noexcept { return access_.get(); }

private:
  std::shared_ptr<log_file> log_;
  std::shared_ptr<log_file> access_file_;
  std::unique_ptr<access_log> access_;
};

} // namespace restcache::logging
