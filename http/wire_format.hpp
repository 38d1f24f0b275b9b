// SPDX-License-Identifier: Apache-2.0
#pragma once

// The bytes of an answer's status line and header: the part of HTTP/1.1's
// wire format the server writes by hand instead of with Beast's generic
// serializer. No Beast here.

#include <string>
#include <string_view>

#include "http/reply.hpp"

namespace restcache::http {

/// IMF-fixdate of now ("Tue, 01 Dec 2026 05:45:05 GMT"), formatted at most
/// once a second per thread; valid until the thread's next call.
std::string_view http_date();

/// The Connection line the answer needs, or empty when the version's default
/// applies (HTTP/1.1 keeps the connection, HTTP/1.0 closes it).
std::string_view connection_line(unsigned version, bool keep_alive) noexcept;

/// Writes `r`'s status line and header, up to and including the empty line,
/// into `out` (replacing what it held, keeping its capacity). `version` is
/// 10 or 11.
void serialize_head(std::string& out, const reply& r, unsigned version, std::string_view request_id,
                    bool keep_alive);

} // namespace restcache::http
