// SPDX-License-Identifier: Apache-2.0
// The async driver on an io thread: the io_context watches the sockets and
// runs the timer, and every job, result and callback runs on its thread.

#include "db/pg_async_driver_impl.hpp"

namespace restcache {

void pg_async_driver::impl::stop_at_home() {
  if (home->get_executor().running_in_this_thread()) {
    shutdown();
    return;
  }
  auto done = std::make_shared<std::promise<void>>();
  auto stopped_there = done->get_future();
  net::post(*home, [self = shared_from_this(), done] {
    self->shutdown();
    done->set_value();
  });
  // An io_context that no longer runs never gets to it: do not hang.
  if (stopped_there.wait_for(10s) != std::future_status::ready)
    spdlog::error("db driver: its io thread did not stop it within 10 s");
}

void pg_async_driver::impl::drain() {
  std::deque<command> cmds;
  {
    std::lock_guard guard{mtx};
    drain_posted = false;
    if (stopped)
      return;
    cmds.swap(inbox);
  }
  // Only a connection given jobs has something new to send; opened and
  // closed ones have no socket yet or any more.
  for (auto* s : process(cmds))
    watch(*s);
  after_event();
}

void pg_async_driver::impl::after_event() {
  std::optional<clock_type::time_point> next;
  if (run_timers(next)) {
    for (auto& sp : slots)
      watch(*sp);
    next.reset();
    run_timers(next); // what watching changed (deadlines armed or cleared)
  }
  std::erase_if(slots, [](const auto& sp) { return sp->ph == slot_rec::phase::closed; });
  arm_timer(next);
}

void pg_async_driver::impl::watch(slot_rec& s) {
  for (;;) {
    int fd = s.conn != nullptr ? PQsocket(s.conn) : -1;
    if (fd != s.sd_fd) {
      release_socket(s);
      if (fd >= 0) {
        boost::system::error_code ec;
        s.sd.emplace(*home);
        s.sd->assign(fd, ec);
        if (ec) {
          s.sd.reset();
          auto why = "cannot watch the socket: " + ec.message();
          if (s.ph == slot_rec::phase::ready)
            lose(s, why);
          else
            connect_failed(s, why);
          continue;
        }
        s.sd_fd = fd;
      }
    }
    if (fd < 0)
      return;
    short want = POLLIN;
    if (s.ph == slot_rec::phase::connecting)
      want = s.connect_poll == PGRES_POLLING_READING ? POLLIN : POLLOUT;
    else if (s.want_write)
      want |= POLLOUT;
    // asio reports a socket becoming ready, not being ready: what is
    // pending already is handled now.
    pollfd p{fd, want, 0};
    if (::poll(&p, 1, 0) > 0 && p.revents != 0) {
      handle_io(s, p.revents);
      continue;
    }
    if ((want & POLLIN) != 0 && !s.read_armed)
      arm_wait(s, true);
    if ((want & POLLOUT) != 0 && !s.write_armed)
      arm_wait(s, false);
    return;
  }
}

void pg_async_driver::impl::arm_wait(slot_rec& s, bool read) {
  (read ? s.read_armed : s.write_armed) = true;
  s.sd->async_wait(read ? net::posix::descriptor_base::wait_read : net::posix::descriptor_base::wait_write,
                   [self = shared_from_this(), sp = s.shared_from_this(), gen = s.sd_gen,
                    read](const boost::system::error_code& ec) {
                     if (sp->sd_gen != gen)
                       return; // released: not this socket's wait any more
                     (read ? sp->read_armed : sp->write_armed) = false;
                     if (ec)
                       return;
                     self->watch(*sp);
                     self->after_event();
                   });
}

void pg_async_driver::impl::release_socket(slot_rec& s) {
  if (s.sd) {
    s.sd->release(); // deregisters and cancels its waits; libpq owns the descriptor
    s.sd.reset();
  }
  s.sd_fd = -1;
  ++s.sd_gen;
  s.read_armed = false;
  s.write_armed = false;
}

void pg_async_driver::impl::arm_timer(std::optional<clock_type::time_point> next) {
  // A timer armed for earlier fires first and re-arms for what is left.
  if (!next || (timer_at && *timer_at <= *next))
    return;
  timer_at = next;
  timer->expires_at(*next);
  timer->async_wait([self = shared_from_this()](const boost::system::error_code& ec) {
    if (ec)
      return; // re-armed or cancelled
    self->timer_at.reset();
    self->after_event();
  });
}

} // namespace restcache
