// SPDX-License-Identifier: Apache-2.0
#include "persistence/pg/pgoutput.hpp"

namespace restcache::pg::pgoutput {

namespace {

/// Reads a message front to back; every read past its end throws.
class reader {
public:
  explicit reader(std::string_view bytes) : rest_(bytes) {}

  uint8_t u8() { return static_cast<uint8_t>(take(1)[0]); }
  uint16_t u16() { return static_cast<uint16_t>(be(2)); }
  uint32_t u32() { return static_cast<uint32_t>(be(4)); }
  uint64_t u64() { return be(8); }
  int64_t i64() { return static_cast<int64_t>(be(8)); }
  int32_t i32() { return static_cast<int32_t>(u32()); }

  std::string string() {
    auto nul = rest_.find('\0');
    if (nul == std::string_view::npos)
      throw decode_error("pgoutput: a string without its terminating NUL");
    std::string s{rest_.substr(0, nul)};
    rest_.remove_prefix(nul + 1);
    return s;
  }

  std::string_view bytes(size_t n) { return take(n); }
  std::string_view rest() const noexcept { return rest_; }
  bool done() const noexcept { return rest_.empty(); }

private:
  std::string_view rest_;

  std::string_view take(size_t n) {
    if (rest_.size() < n)
      throw decode_error("pgoutput: message cut short");
    auto out = rest_.substr(0, n);
    rest_.remove_prefix(n);
    return out;
  }

  uint64_t be(size_t n) {
    uint64_t v = 0;
    for (unsigned char c : take(n))
      v = (v << 8) | c;
    return v;
  }
};

row read_row(reader& r) {
  row out(r.u16());
  for (auto& v : out) {
    switch (r.u8()) {
      case 'n': v.is = value::state::null; break;
      case 'u': v.is = value::state::unchanged; break;
      case 't': {
        v.is = value::state::text;
        auto n = r.u32();
        v.text = std::string{r.bytes(n)};
        break;
      }
      case 'b': throw decode_error("pgoutput: a binary value (protocol version 1 sends text)");
      default: throw decode_error("pgoutput: a value of an unknown kind");
    }
  }
  return out;
}

/// 'K' or 'O' before an old row; anything else is not one.
bool old_row_tag(uint8_t tag, bool& is_key) {
  if (tag != 'K' && tag != 'O')
    return false;
  is_key = tag == 'K';
  return true;
}

void expect_end(const reader& r) {
  if (!r.done())
    throw decode_error("pgoutput: bytes after the end of a message");
}

} // namespace

message decode(std::string_view bytes) {
  reader r{bytes};
  message out;
  switch (auto tag = r.u8()) {
    case 'B': {
      begin m;
      m.final_lsn = r.u64();
      m.commit_time = r.i64();
      m.xid = r.u32();
      out = m;
      break;
    }
    case 'C': {
      commit m;
      r.u8(); // flags, unused
      m.commit_lsn = r.u64();
      m.end_lsn = r.u64();
      m.commit_time = r.i64();
      out = m;
      break;
    }
    case 'O': {
      origin m;
      m.lsn = r.u64();
      m.name = r.string();
      out = std::move(m);
      break;
    }
    case 'R': {
      relation m;
      m.oid = r.u32();
      m.schema = r.string();
      m.name = r.string();
      m.replica_identity = static_cast<char>(r.u8());
      m.columns.resize(r.u16());
      for (auto& c : m.columns) {
        c.key = (r.u8() & 1) != 0;
        c.name = r.string();
        c.type = r.u32();
        c.typmod = r.i32();
      }
      out = std::move(m);
      break;
    }
    case 'Y': {
      type m;
      m.oid = r.u32();
      m.schema = r.string();
      m.name = r.string();
      out = std::move(m);
      break;
    }
    case 'I': {
      insert m;
      m.relation = r.u32();
      if (r.u8() != 'N')
        throw decode_error("pgoutput: an insert without its new row");
      m.new_row = read_row(r);
      out = std::move(m);
      break;
    }
    case 'U': {
      update m;
      m.relation = r.u32();
      auto next = r.u8();
      if (old_row_tag(next, m.old_is_key)) {
        m.old_row = read_row(r);
        next = r.u8();
      }
      if (next != 'N')
        throw decode_error("pgoutput: an update without its new row");
      m.new_row = read_row(r);
      out = std::move(m);
      break;
    }
    case 'D': {
      remove m;
      m.relation = r.u32();
      if (!old_row_tag(r.u8(), m.old_is_key))
        throw decode_error("pgoutput: a delete without its old row or key");
      m.old_row = read_row(r);
      out = std::move(m);
      break;
    }
    case 'T': {
      truncate m;
      auto n = r.u32();
      auto options = r.u8();
      m.cascade = (options & 1) != 0;
      m.restart_identity = (options & 2) != 0;
      if (n > r.rest().size() / 4)
        throw decode_error("pgoutput: message cut short");
      m.relations.resize(n);
      for (auto& oid : m.relations)
        oid = r.u32();
      out = std::move(m);
      break;
    }
    case 'M': {
      logical_message m;
      m.transactional = (r.u8() & 1) != 0;
      m.lsn = r.u64();
      m.prefix = r.string();
      auto n = r.u32();
      m.content = std::string{r.bytes(n)};
      out = std::move(m);
      break;
    }
    case 'S':
    case 'E':
    case 'c':
    case 'A':
      throw decode_error("pgoutput: a streamed transaction's message (protocol version 1 sends none)");
    default: throw decode_error("pgoutput: unknown message '" + std::string(1, static_cast<char>(tag)) + "'");
  }
  expect_end(r);
  return out;
}

frame decode_frame(std::string_view bytes) {
  reader r{bytes};
  switch (r.u8()) {
    case 'w': {
      xlog_data f;
      f.start = r.u64();
      f.end = r.u64();
      f.send_time = r.i64();
      f.message = r.rest();
      return f;
    }
    case 'k': {
      keepalive f;
      f.end = r.u64();
      f.send_time = r.i64();
      f.reply_requested = r.u8() != 0;
      expect_end(r);
      return f;
    }
    default: throw decode_error("replication stream: unknown frame");
  }
}

std::string status_update(uint64_t written, uint64_t flushed, uint64_t applied, int64_t now, bool reply_requested) {
  std::string out;
  out.reserve(34);
  out += 'r';
  auto put = [&](uint64_t v) {
    for (int shift = 56; shift >= 0; shift -= 8)
      out += static_cast<char>((v >> shift) & 0xff);
  };
  put(written);
  put(flushed);
  put(applied);
  put(static_cast<uint64_t>(now));
  out += static_cast<char>(reply_requested ? 1 : 0);
  return out;
}

} // namespace restcache::pg::pgoutput
