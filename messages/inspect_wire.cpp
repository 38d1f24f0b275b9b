// SPDX-License-Identifier: Apache-2.0
#include "messages/inspect_wire.hpp"

#include <caf/binary_deserializer.hpp>
#include <caf/serializer_impl.hpp>

namespace restcache::inspect_wire {

namespace {

bool printable(std::string_view text) {
  for (unsigned char c : text)
    if (c < 0x20 || c > 0x7e)
      return false;
  return true;
}

/// The serializer's buffer. It appends out of line: GCC 12 at -O3 inlines
/// CAF's one-byte appends into libstdc++'s copy and warns falsely there
/// (-Warray-bounds, -Wrestrict), where no pragma reaches.
struct append_buffer {
  using value_type = char;
  std::string bytes;

  size_t size() const noexcept { return bytes.size(); }
  char* data() noexcept { return bytes.data(); }
  const char* end() const noexcept { return nullptr; } ///< serializer_impl inserts only at the end
  [[gnu::noinline]] void insert(const char*, const char* first, const char* last) { bytes.append(first, last); }
};

// No actor system: the reports hold only numbers, strings and vectors.
template <class T>
std::string encode_vector(const std::vector<T>& xs) {
  append_buffer buf;
  caf::serializer_impl<append_buffer> sink{static_cast<caf::execution_unit*>(nullptr), buf};
  if (sink(xs))
    return {};
  return std::move(buf.bytes);
}

template <class T>
bool decode_vector(std::string_view payload, std::vector<T>& out) {
  out.clear();
  caf::binary_deserializer source{static_cast<caf::execution_unit*>(nullptr), payload.data(), payload.size()};
  return !source(out) && source.remaining() == 0;
}

} // namespace

std::string request::line() const {
  return what == kind::list ? std::string{"list\n"} : "key " + key + "\n";
}

std::optional<request> parse_request(std::string_view line, std::string& why) {
  if (!line.empty() && line.back() == '\r')
    line.remove_suffix(1);
  if (!printable(line)) {
    why = "the request is not a line of text; " + std::string{expected_requests};
    return std::nullopt;
  }
  if (line == "list")
    return request{request::kind::list, {}};
  if (line.rfind("key ", 0) == 0)
    return request{request::kind::key, std::string{line.substr(4)}};
  // Quoted only when short: the line is at most max_request_bytes anyway.
  why = "unknown request '" + std::string{line.substr(0, 40)} + (line.size() > 40 ? "...'" : "'") + "; "
        + std::string{expected_requests};
  return std::nullopt;
}

std::string answer(status st, std::string_view payload) {
  if (payload.size() > max_answer_bytes)
    return answer(status::unavailable, "the answer is larger than " + std::to_string(max_answer_bytes) + " bytes");
  std::string out{magic};
  out += static_cast<char>(st);
  auto n = static_cast<uint32_t>(payload.size());
  for (int shift = 24; shift >= 0; shift -= 8)
    out += static_cast<char>((n >> shift) & 0xff);
  out += payload;
  return out;
}

std::optional<answer_header> parse_header(std::string_view bytes, std::string& why) {
  if (bytes.size() < header_bytes || bytes.substr(0, magic.size()) != magic) {
    why = "the answer is not restcached's inspector protocol";
    return std::nullopt;
  }
  answer_header h;
  auto st = static_cast<uint8_t>(bytes[4]);
  if (st > static_cast<uint8_t>(status::unavailable)) {
    why = "the answer has an unknown status " + std::to_string(st);
    return std::nullopt;
  }
  h.st = static_cast<status>(st);
  for (size_t i = 5; i < header_bytes; ++i)
    h.length = (h.length << 8) | static_cast<uint8_t>(bytes[i]);
  if (h.length > max_answer_bytes) {
    why = "the answer announces " + std::to_string(h.length) + " bytes, more than the "
          + std::to_string(max_answer_bytes) + " allowed";
    return std::nullopt;
  }
  return h;
}

std::string encode(const std::vector<actor_report>& reports) {
  return encode_vector(reports);
}

std::string encode(const std::vector<key_report>& reports) {
  return encode_vector(reports);
}

bool decode(std::string_view payload, std::vector<actor_report>& out) {
  return decode_vector(payload, out);
}

bool decode(std::string_view payload, std::vector<key_report>& out) {
  return decode_vector(payload, out);
}

} // namespace restcache::inspect_wire
