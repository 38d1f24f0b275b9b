// SPDX-License-Identifier: Apache-2.0
#include "app/inspect_socket.hpp"

#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <stdexcept>
#include <system_error>

#include "messages/inspect_wire.hpp"

namespace restcache {

namespace {

using inspect_wire::status;

std::string errno_text(int err) {
  return std::strerror(err);
}

sockaddr_un unix_address(const std::string& path) {
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::memcpy(addr.sun_path, path.c_str(), path.size() + 1); // the caller checked the length
  return addr;
}

/// What went wrong, as the error's own text when it carries one.
std::string describe(const caf::error& err) {
  auto& ctx = err.context();
  if (ctx.match_elements<std::string>())
    return ctx.get_as<std::string>(0);
  return caf::to_string(err);
}

/// Removes a socket file nobody answers on (left by a daemon that was
/// killed); refuses anything else that is there.
void clear_stale(const std::string& path) {
  struct stat st{};
  if (lstat(path.c_str(), &st) != 0) {
    if (errno == ENOENT)
      return;
    throw std::runtime_error("cannot look at it: " + errno_text(errno));
  }
  if (!S_ISSOCK(st.st_mode))
    throw std::runtime_error("it exists and is not a socket (left as it is)");
  int probe = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (probe < 0)
    throw std::runtime_error("socket: " + errno_text(errno));
  auto addr = unix_address(path);
  int rc = connect(probe, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  int err = errno;
  close(probe);
  // EAGAIN: a listener whose backlog is full, so a live one too.
  if (rc == 0 || err == EAGAIN)
    throw std::runtime_error("a live process answers on it (another restcached with this inspect.socket?)");
  if (err != ECONNREFUSED)
    throw std::runtime_error("cannot tell whether a live process answers on it: " + errno_text(err));
  if (unlink(path.c_str()) != 0 && errno != ENOENT)
    throw std::runtime_error("cannot remove the stale socket file: " + errno_text(errno));
  spdlog::info("inspect.socket {}: removed a stale socket file nobody answered on", path);
}

} // namespace

inspect_socket::inspect_socket(caf::actor_system& sys, inspector_actor inspector, std::string path)
  : sys_(sys), inspector_(std::move(inspector)), path_(std::move(path)) {
  auto fail = [this](const std::string& why) {
    stop();
    return std::runtime_error("cannot serve the inspector on " + path_ + " (inspect.socket): " + why);
  };
  if (path_.empty() || path_.size() >= sizeof(sockaddr_un::sun_path))
    throw fail("a socket path needs 1 to " + std::to_string(sizeof(sockaddr_un::sun_path) - 1) + " bytes, not "
               + std::to_string(path_.size()));
  try {
    clear_stale(path_);
  } catch (const std::runtime_error& e) {
    throw fail(e.what());
  }
  if (pipe2(wake_, O_CLOEXEC | O_NONBLOCK) != 0)
    throw fail("pipe: " + errno_text(errno));
  listen_fd_ = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (listen_fd_ < 0)
    throw fail("socket: " + errno_text(errno));
  // bind creates the file with the umask applied: 0177 makes it 0600 from
  // the start (a chmod afterwards would leave a moment where it is wider).
  // The umask is the process's; a file another thread creates meanwhile
  // gets narrower permissions, never wider ones.
  auto addr = unix_address(path_);
  auto old_mask = umask(0177);
  int rc = bind(listen_fd_, reinterpret_cast<const sockaddr*>(&addr), sizeof addr);
  int err = errno;
  umask(old_mask);
  if (rc != 0)
    throw fail("bind: " + errno_text(err) + (err == ENOENT ? " (does its directory exist?)" : ""));
  struct stat st{};
  if (lstat(path_.c_str(), &st) != 0)
    throw fail("cannot look at the socket made: " + errno_text(errno));
  dev_ = st.st_dev;
  ino_ = st.st_ino;
  if ((st.st_mode & 0777) != 0600) {
    char mode[8];
    std::snprintf(mode, sizeof mode, "%03o", static_cast<unsigned>(st.st_mode & 0777));
    throw fail(std::string{"the socket was made with mode "} + mode + ", not 600");
  }
  if (listen(listen_fd_, 4) != 0)
    throw fail("listen: " + errno_text(errno));
  try {
    thread_ = std::thread{[this] { run(); }};
  } catch (const std::system_error& e) {
    throw fail(std::string{"cannot start its thread: "} + e.what());
  }
  pthread_setname_np(thread_.native_handle(), "inspect-socket");
}

inspect_socket::~inspect_socket() {
  stop();
}

void inspect_socket::stop() {
  if (thread_.joinable()) {
    char wake = 1;
    [[maybe_unused]] auto n = write(wake_[1], &wake, 1);
    thread_.join();
  }
  if (ino_ != 0) {
    struct stat st{};
    if (lstat(path_.c_str(), &st) == 0 && st.st_dev == dev_ && st.st_ino == ino_)
      unlink(path_.c_str());
    ino_ = 0;
  }
  for (int* fd : {&listen_fd_, &wake_[0], &wake_[1]})
    if (*fd >= 0) {
      close(*fd);
      *fd = -1;
    }
}

void inspect_socket::run() {
  bool told_full = false; // one warning while the descriptors run out
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {wake_[0], POLLIN, 0}};
    if (poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      spdlog::error("inspect.socket {}: poll failed ({}); restcache-inspect is no longer served", path_,
                    errno_text(errno));
      return;
    }
    if (fds[1].revents != 0)
      return;
    int client = accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC | SOCK_NONBLOCK);
    if (client < 0) {
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        if (!told_full)
          spdlog::warn("inspect.socket {}: cannot accept ({}); retrying", path_, errno_text(errno));
        told_full = true;
        pollfd wake{wake_[0], POLLIN, 0};
        if (poll(&wake, 1, 100) > 0) // back off rather than spin
          return;
      }
      continue;
    }
    told_full = false;
    serve(client);
    close(client);
  }
}

void inspect_socket::serve(int client) {
  auto deadline = std::chrono::steady_clock::now() + io_deadline;
  auto reply = [&](std::string_view bytes) {
    write_all(client, bytes, std::chrono::steady_clock::now() + io_deadline);
  };
  auto refuse = [&](const std::string& why) {
    spdlog::debug("inspect.socket {}: request refused: {}", path_, why);
    reply(inspect_wire::answer(status::bad_request, why));
  };
  std::array<char, inspect_wire::max_request_bytes> line;
  size_t got = 0;
  for (;;) {
    if (!wait_for(client, POLLIN, deadline)) {
      pollfd wake{wake_[0], POLLIN, 0};
      if (poll(&wake, 1, 0) == 0) // not stopping: the client was too slow
        refuse("no request line within " + std::to_string(io_deadline.count()) + " s");
      return;
    }
    auto n = recv(client, line.data() + got, line.size() - got, 0);
    if (n < 0 && (errno == EAGAIN || errno == EINTR))
      continue;
    if (n < 0)
      return;
    if (n == 0) { // nothing at all: a liveness probe (another daemon starting)
      if (got != 0)
        refuse("the request line has no end ('\\n')");
      return;
    }
    for (size_t i = got; i < got + static_cast<size_t>(n); ++i) {
      auto c = static_cast<unsigned char>(line[i]);
      if (c == '\n') {
        reply(answer({line.data(), i}));
        return;
      }
      // Refused at the first byte that cannot be in a request, not at the
      // deadline: binary input (another protocol) gets its answer at once.
      if ((c < 0x20 && c != '\r') || c > 0x7e) {
        refuse("the request is not a line of text (" + std::string{inspect_wire::expected_requests} + ")");
        return;
      }
    }
    got += static_cast<size_t>(n);
    if (got == line.size()) {
      refuse("the request line is longer than " + std::to_string(line.size()) + " bytes");
      return;
    }
  }
}

std::string inspect_socket::answer(std::string_view line) {
  std::string why;
  auto req = inspect_wire::parse_request(line, why);
  if (!req)
    return inspect_wire::answer(status::bad_request, why);
  std::string out;
  auto failed = [&](caf::error& err) {
    if (err == caf::sec::invalid_argument)
      out = inspect_wire::answer(status::bad_request, describe(err));
    else
      out = inspect_wire::answer(status::unavailable, "the inspector did not answer: " + describe(err));
  };
  auto ok = [&](std::string payload) {
    out = payload.empty() ? inspect_wire::answer(status::unavailable, "the answer could not be encoded")
                          : inspect_wire::answer(status::ok, payload);
  };
  // Hidden: a blocking actor the actor system does not wait for at shutdown.
  caf::scoped_actor self{sys_, true};
  if (req->what == inspect_wire::request::kind::list)
    self->request(inspector_, ask_timeout, list_atom::value)
      .receive([&](std::vector<actor_report>& reports) { ok(inspect_wire::encode(reports)); }, failed);
  else
    self->request(inspector_, ask_timeout, key_atom::value, req->key)
      .receive([&](std::vector<key_report>& reports) { ok(inspect_wire::encode(reports)); }, failed);
  return out;
}

bool inspect_socket::wait_for(int fd, short events, std::chrono::steady_clock::time_point deadline) const {
  for (;;) {
    auto left = std::chrono::ceil<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      return false;
    pollfd fds[2] = {{fd, events, 0}, {wake_[0], POLLIN, 0}};
    if (poll(fds, 2, static_cast<int>(left.count())) < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    if (fds[1].revents != 0)
      return false;
    if (fds[0].revents != 0) // ready, or hung up: the read or write says which
      return true;
  }
}

void inspect_socket::write_all(int client, std::string_view bytes,
                               std::chrono::steady_clock::time_point deadline) const {
  size_t done = 0;
  while (done < bytes.size()) {
    auto n = send(client, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
    if (n > 0) {
      done += static_cast<size_t>(n);
      continue;
    }
    if (n < 0 && errno == EINTR)
      continue;
    if (n < 0 && errno == EAGAIN && wait_for(client, POLLOUT, deadline))
      continue;
    return; // gone, too slow, or stopping: the answer is dropped
  }
}

} // namespace restcache
