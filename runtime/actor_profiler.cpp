// SPDX-License-Identifier: Apache-2.0
#include "runtime/actor_profiler.hpp"

#include <sys/resource.h>
#include <sys/time.h>

#include <algorithm>
#include <iomanip>

namespace restcache::runtime {

namespace {

actor_profiler::usec to_usec(const ::timeval& tv) {
  return std::chrono::seconds{tv.tv_sec} + actor_profiler::usec{tv.tv_usec};
}

} // namespace

actor_profiler::sample actor_profiler::sample::take() {
  sample s;
  s.runtime = std::chrono::duration_cast<usec>(std::chrono::system_clock::now().time_since_epoch());
  ::rusage ru{};
  if (::getrusage(RUSAGE_THREAD, &ru) == 0) {
    s.usr = to_usec(ru.ru_utime);
    s.sys = to_usec(ru.ru_stime);
    s.mem = ru.ru_maxrss;
  }
  return s;
}

actor_profiler::sample& actor_profiler::sample::operator+=(const sample& o) {
  runtime += o.runtime;
  usr += o.usr;
  sys += o.sys;
  mem = std::max(mem, o.mem);
  return *this;
}

actor_profiler::sample actor_profiler::sample::operator-(const sample& o) const {
  sample d;
  d.runtime = runtime - o.runtime;
  d.usr = usr - o.usr;
  d.sys = sys - o.sys;
  d.mem = mem; // peak so far, not a difference
  return d;
}

actor_profiler::actor_profiler(const std::string& path, std::chrono::milliseconds resolution)
  : file_(path), resolution_(resolution) {
  if (!file_)
    return;
  file_.flags(std::ios::left);
  file_ << std::setw(21) << "clock" << std::setw(10) << "type" << std::setw(10) << "id"
        << std::setw(15) << "time" << std::setw(15) << "usr" << std::setw(15) << "sys" << "mem"
        << '\n';
}

void actor_profiler::record(worker_log& log, uint64_t id, const sample& used) {
  log.actors[id] += used;
  log.worker += used;
  auto now = std::chrono::steady_clock::now();
  if (now - log.last_flush >= resolution_)
    flush(log);
}

void actor_profiler::flush(worker_log& log) {
  log.last_flush = std::chrono::steady_clock::now();
  if (log.actors.empty())
    return;
  auto clock = std::chrono::duration_cast<usec>(std::chrono::system_clock::now().time_since_epoch()).count();
  auto row = [&](const char* type, uint64_t id, const sample& s) {
    file_ << std::setw(21) << clock << std::setw(10) << type << std::setw(10) << id
          << std::setw(15) << s.runtime.count() << std::setw(15) << s.usr.count()
          << std::setw(15) << s.sys.count() << s.mem << '\n';
  };
  {
    std::lock_guard guard{file_mtx_};
    for (auto& [id, s] : log.actors)
      row("actor", id, s);
    row("worker", log.worker_id, log.worker);
    file_.flush();
  }
  log.actors.clear();
  log.worker = sample{};
}

} // namespace restcache::runtime
