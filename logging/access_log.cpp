// SPDX-License-Identifier: Apache-2.0
#include "logging/access_log.hpp"

#include <charconv>
#include <chrono>
#include <cstdio>
#include <utility>

#include "logging/json_formatter.hpp"

namespace restcache::logging {

namespace {

thread_local void* own_buffer = nullptr;

int64_t wall_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
    .count();
}

void append_count(std::string& out, uint64_t v) {
  char digits[24];
  auto [end, ec] = std::to_chars(digits, digits + sizeof digits, v);
  out.append(digits, static_cast<size_t>(end - digits));
}
thread_local const access_log* own_buffer_owner = nullptr;

/// A request target or id in a text line: quotes, backslashes and control
/// characters escaped so a line stays one parseable line.
void append_text_escaped(std::string& out, std::string_view s) {
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if (c == '"' || c == '\\' || u < 0x20 || u == 0x7f) {
      char buf[8];
      std::snprintf(buf, sizeof buf, "\\x%02x", u);
      out += buf;
    } else {
      out += c;
    }
  }
}

/// A request target: bytes outside ASCII percent-encoded ("%C3"), as a URI
/// would carry them (RFC 3986 targets are ASCII), so the line is valid
/// UTF-8 and shows exactly the bytes that were sent; then escaped for the
/// line's format.
void append_target(std::string& out, std::string_view target, bool json) {
  static constexpr char hex[] = "0123456789ABCDEF";
  // Bounded: a flood of 8 KB targets must not crowd out the lines of other
  // clients (the buffers are bounded, and drop what does not fit).
  const size_t cut = target.size() > access_log::max_target_bytes ? target.size() - access_log::max_target_bytes : 0;
  target = target.substr(0, target.size() - cut);
  size_t plain = 0; // start of the ASCII run not yet appended
  auto flush = [&](size_t end) {
    auto run = target.substr(plain, end - plain);
    if (json)
      append_json_escaped(out, run);
    else
      append_text_escaped(out, run);
  };
  for (size_t i = 0; i < target.size(); ++i) {
    auto u = static_cast<unsigned char>(target[i]);
    if (u < 0x80)
      continue;
    flush(i);
    out += '%';
    out += hex[u >> 4];
    out += hex[u & 15];
    plain = i + 1;
  }
  flush(target.size());
  if (cut > 0) {
    out += "...(+";
    append_count(out, cut);
    out += " bytes)";
  }
}

/// "0.000123": microseconds as seconds with six decimals, without printf
/// (snprintf was half of what a line cost).
void append_seconds(std::string& out, int64_t us) {
  auto v = static_cast<uint64_t>(us < 0 ? 0 : us);
  append_count(out, v / 1'000'000);
  char fraction[7] = {'.'};
  for (int i = 6, rest = static_cast<int>(v % 1'000'000); i >= 1; --i, rest /= 10)
    fraction[i] = static_cast<char>('0' + rest % 10);
  out.append(fraction, sizeof fraction);
}

} // namespace

access_log::access_log(std::shared_ptr<log_file> out, bool json)
  : out_(std::move(out)), json_(json), writer_([this] { run_writer(); }) {
}

access_log::~access_log() {
  {
    std::lock_guard lk{stop_mtx_};
    stopping_ = true;
  }
  stop_cv_.notify_one();
  writer_.join();
  write_all();
}

access_log::thread_buffer& access_log::buffer_of_this_thread() {
  if (own_buffer_owner != this) {
    std::lock_guard lk{buffers_mtx_};
    own_buffer = &buffers_.emplace_back();
    own_buffer_owner = this;
  }
  return *static_cast<thread_buffer*>(own_buffer);
}

void access_log::format(std::string& out, const access_entry& e) const {
  const auto now_ms = wall_ms();
  if (json_) {
    out += "{\"time\":\"";
    append_utc_time(out, now_ms);
    out += "\",\"remote\":\"";
    append_json_escaped(out, e.remote);
    out += "\",\"method\":\"";
    append_target(out, e.method, true);
    out += "\",\"target\":\"";
    append_target(out, e.target, true);
    out += "\",\"status\":";
    append_count(out, e.status);
    out += ",\"bytes\":";
    append_count(out, e.bytes);
    out += ",\"duration_s\":";
    append_seconds(out, e.duration_us);
    out += ",\"request_id\":\"";
    append_json_escaped(out, e.request_id);
    out += "\"}\n";
    return;
  }
  out += e.remote.empty() ? std::string_view{"-"} : e.remote;
  out += " - - [";
  append_utc_time(out, now_ms);
  out += "] \"";
  append_target(out, e.method, false);
  out += ' ';
  append_target(out, e.target, false);
  out += e.version == 10 ? " HTTP/1.0\" " : " HTTP/1.1\" ";
  append_count(out, e.status);
  out += ' ';
  append_count(out, e.bytes);
  out += ' ';
  append_seconds(out, e.duration_us);
  out += " \"";
  append_text_escaped(out, e.request_id);
  out += "\"\n";
}

void access_log::record(const access_entry& e) noexcept {
  try {
    auto& b = buffer_of_this_thread();
    std::lock_guard lk{b.mtx};
    if (b.text.size() > max_buffered) {
      dropped_.fetch_add(1, std::memory_order_relaxed);
      ++b.dropped; // said in the log itself once written
      return;
    }
    format(b.text, e);
    ++b.lines;
  } catch (...) {
    dropped_.fetch_add(1, std::memory_order_relaxed); // out of memory: the request goes on
  }
}

void access_log::write_all() {
  std::string chunk;
  std::lock_guard lk{buffers_mtx_};
  for (auto& b : buffers_) {
    uint64_t lines = 0;
    uint64_t dropped = 0;
    {
      std::lock_guard blk{b.mtx};
      chunk.swap(b.text); // the thread keeps appending to a (reused) buffer
      lines = b.lines;
      b.lines = 0;
      dropped = std::exchange(b.dropped, 0);
    }
    if (dropped > 0)
      note_dropped(chunk, dropped);
    if (!chunk.empty())
      out_->write(chunk.data(), chunk.size());
    written_.fetch_add(lines, std::memory_order_relaxed);
    chunk.clear();
  }
}

void access_log::note_dropped(std::string& out, uint64_t n) const {
  // Where the lines are missing, in the log's own format: nobody's line
  // goes unaccounted for.
  const auto now_ms = wall_ms();
  if (json_) {
    out += "{\"time\":\"";
    append_utc_time(out, now_ms);
    out += "\",\"dropped_lines\":";
    append_count(out, n);
    out += ",\"why\":\"the access log writer was behind\"}\n";
    return;
  }
  out += "- - - [";
  append_utc_time(out, now_ms);
  out += "] \"- -\" 0 0 0.000000 \"";
  append_count(out, n);
  out += " lines dropped: the access log writer was behind\"\n";
}

void access_log::run_writer() {
  std::unique_lock lk{stop_mtx_};
  while (!stopping_) {
    stop_cv_.wait_for(lk, std::chrono::milliseconds{100});
    lk.unlock();
    write_all();
    lk.lock();
  }
}

} // namespace restcache::logging
