// SPDX-License-Identifier: Apache-2.0
#pragma once

// The inspector's socket protocol: restcached serves it on its Unix socket
// (inspect.socket) and restcache-inspect speaks it. One request line per
// connection, one framed answer, then the daemon closes:
//
//   request  "list\n" or "key <name>:<id>\n": at most max_request_bytes, the
//            '\n' included (a '\r' before it is dropped)
//   answer   "RCI1", a status byte, the payload's length (u32, big-endian),
//            the payload:
//              ok           CAF's binary serialization of the
//                           std::vector<actor_report> (list) or
//                           std::vector<key_report> (key) the inspector answered
//              bad_request  why, as text (a bad key, not a request, too long)
//              unavailable  why, as text (the inspector did not answer)
//
// Both sides bound what they read: the daemon max_request_bytes, the tool
// max_answer_bytes.

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "messages/inspect_types.hpp"

namespace restcache::inspect_wire {

inline constexpr size_t max_request_bytes = 256;
inline constexpr size_t max_answer_bytes = size_t{1} << 20;
inline constexpr std::string_view magic = "RCI1";
inline constexpr size_t header_bytes = 9; ///< magic, status, length

enum class status : uint8_t { ok = 0, bad_request = 1, unavailable = 2 };

struct request {
  enum class kind : uint8_t { list, key };
  kind what = kind::list;
  std::string key; ///< kind::key: the text after "key " (the inspector checks it)

  /// The line the tool sends, '\n' included.
  std::string line() const;
};

/// The request of one line (without its '\n'); nullopt and `why` for
/// anything else.
std::optional<request> parse_request(std::string_view line, std::string& why);
/// What a refusal says the requests are: a key names its kind's key space,
/// whatever kinds the daemon serves.
inline constexpr std::string_view expected_requests = "expected 'list' or 'key <name>:<id>'";

/// The whole answer: header and payload (at most max_answer_bytes, else an
/// unavailable answer saying so).
std::string answer(status st, std::string_view payload);

struct answer_header {
  status st = status::ok;
  uint32_t length = 0;
};

/// The first header_bytes of an answer; nullopt and `why` when they are not
/// one (another program's socket) or announce more than max_answer_bytes.
std::optional<answer_header> parse_header(std::string_view bytes, std::string& why);

/// The ok payloads.
std::string encode(const std::vector<actor_report>& reports);
std::string encode(const std::vector<key_report>& reports);
/// False when `payload` is not exactly one encoded vector.
bool decode(std::string_view payload, std::vector<actor_report>& out);
bool decode(std::string_view payload, std::vector<key_report>& out);

} // namespace restcache::inspect_wire
