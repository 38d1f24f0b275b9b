// SPDX-License-Identifier: Apache-2.0
#pragma once

// Content-Encoding: gzip for clients that ask (Accept-Encoding): what they
// accept and which ETags name a document. The compression itself is the
// document's (messages/document_gzip.hpp). No Beast here.

#include <string>
#include <string_view>

namespace restcache::http {

/// True when an Accept-Encoding value accepts gzip (or *) with a q above 0.
bool accepts_gzip(std::string_view accept_encoding) noexcept;

/// If-Match given for the gzip representation names the same document:
/// strips the "-gz" of every tag so it compares with the identity ETag.
std::string identity_etags(std::string_view if_match);

} // namespace restcache::http
