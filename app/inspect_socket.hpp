// SPDX-License-Identifier: Apache-2.0
#pragma once

// Serves restcache-inspect on a Unix socket (inspect.socket): the file is
// created with mode 0600, so only the daemon's user and root can connect, and
// no TCP port is opened. One thread, one client at a time, one request line
// of at most inspect_wire::max_request_bytes read within a deadline, one
// answer from the inspector actor, then close (messages/inspect_wire.hpp):
// nothing a client sends makes the daemon hold more than that line.

#include <caf/fwd.hpp>

#include <sys/types.h>

#include <chrono>
#include <string>
#include <string_view>
#include <thread>

#include "actors/actors.hpp"

namespace restcache {

class inspect_socket {
public:
  /// How long a client has to send its line and to take the answer, and
  /// how long the inspector has to answer (it gives each actor 1 s).
  static constexpr std::chrono::seconds io_deadline{3};
  static constexpr std::chrono::seconds ask_timeout{3};

  /// Takes `path` (a socket file nobody answers on, left by a crash, is
  /// replaced), listens and starts the thread. Throws std::runtime_error
  /// saying why not: something answers there (another restcached), it is
  /// not a socket, the path is too long, ...
  inspect_socket(caf::actor_system& sys, inspector_actor inspector, std::string path);
  ~inspect_socket(); ///< stop()s
  inspect_socket(const inspect_socket&) = delete;
  inspect_socket& operator=(const inspect_socket&) = delete;

  const std::string& path() const noexcept { return path_; }

  /// Ends the client being served, joins the thread and removes the socket
  /// file (if it is still the one this made). Safe to call twice.
  void stop();

private:
  void run();
  void serve(int client);
  /// The answer to one request line (without its '\n').
  std::string answer(std::string_view line);
  /// Waits until `fd` is ready for `events` or the deadline or stop(); false
  /// unless ready.
  bool wait_for(int fd, short events, std::chrono::steady_clock::time_point deadline) const;
  void write_all(int client, std::string_view bytes, std::chrono::steady_clock::time_point deadline) const;

  caf::actor_system& sys_;
  inspector_actor inspector_;
  std::string path_;
  int listen_fd_ = -1;
  int wake_[2] = {-1, -1}; ///< stop() writes to [1]; the thread polls [0]
  dev_t dev_ = 0;          ///< the socket file made, to remove only that one
  ino_t ino_ = 0;
  std::thread thread_;
};

} // namespace restcache
