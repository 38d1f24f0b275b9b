// SPDX-License-Identifier: Apache-2.0
// The async driver on a thread of its own: poll() over the connections'
// sockets and an eventfd that wakes it for new jobs and for stop.

#include "db/pg_async_driver_impl.hpp"

namespace restcache {

void pg_async_driver::impl::run() {
  std::vector<pollfd> fds;
  std::vector<slot_rec*> polled; // fds[i + 1] belongs to polled[i]
  std::deque<command> cmds;
  bool efd_read = false;
  for (;;) {
    std::optional<clock_type::time_point> next_timer;
    run_timers(next_timer);
    // The inbox: one lock per round; an empty inbox arms the wake-up.
    {
      std::lock_guard guard{mtx};
      if (stop_requested)
        break;
      if (efd_read) {
        wake_pending = false;
        efd_read = false;
      }
      cmds.swap(inbox);
      if (cmds.empty())
        sleeping.store(true, std::memory_order_relaxed); // submitters now signal efd
    }
    const bool had_cmds = !cmds.empty();
    if (had_cmds) {
      process(cmds);
      cmds.clear();
    }
    fds.clear();
    polled.clear();
    fds.push_back(pollfd{efd, POLLIN, 0});
    for (auto& sp : slots) {
      auto& s = *sp;
      if (s.conn == nullptr)
        continue;
      int fd = PQsocket(s.conn);
      if (fd < 0)
        continue;
      short events = 0;
      if (s.ph == slot_rec::phase::connecting)
        events = s.connect_poll == PGRES_POLLING_READING ? POLLIN : POLLOUT;
      else
        events = static_cast<short>(POLLIN | (s.want_write ? POLLOUT : 0));
      fds.push_back(pollfd{fd, events, 0});
      polled.push_back(&s);
    }
    int timeout = -1;
    if (had_cmds) {
      timeout = 0; // more may have come meanwhile, unsignalled: look again soon
    } else if (next_timer) {
      auto ms = std::chrono::ceil<std::chrono::milliseconds>(*next_timer - clock_type::now());
      timeout = static_cast<int>(std::clamp<int64_t>(ms.count(), 0, INT_MAX));
    }
    int n = ::poll(fds.data(), fds.size(), timeout);
    sleeping.store(false, std::memory_order_relaxed);
    if (n < 0 && errno != EINTR) {
      spdlog::error("db driver: poll failed: {}", std::strerror(errno));
      std::this_thread::sleep_for(10ms);
      continue;
    }
    if (n < 0)
      continue;
    if (fds[0].revents != 0) {
      uint64_t value = 0;
      while (::read(efd, &value, sizeof value) < 0 && errno == EINTR) {
      }
      efd_read = true; // wake_pending is cleared under the next lock
    }
    for (size_t i = 0; i < polled.size(); ++i) {
      auto revents = fds[i + 1].revents;
      auto& s = *polled[i];
      // Handling an earlier slot runs callbacks, which only post; still,
      // never hand libpq events of a socket it has replaced or closed.
      if (revents != 0 && s.conn != nullptr && PQsocket(s.conn) == fds[i + 1].fd)
        handle_io(s, revents);
    }
    // Drop closed slots (their last reference may be ours).
    std::erase_if(slots, [](const auto& sp) { return sp->ph == slot_rec::phase::closed; });
  }
  shutdown();
}

} // namespace restcache
