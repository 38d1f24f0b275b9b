// SPDX-License-Identifier: Apache-2.0
#pragma once

// One answer before it is written: what the request handler decides and the
// wire format serializes. No Beast here.

#include <string>
#include <string_view>
#include <vector>

#include "messages/cache_types.hpp"

namespace restcache::http {

struct header_field {
  std::string_view name; ///< a constant
  std::string value;
};

/// Reused from one request of a connection to the next: its strings and its
/// field list keep their capacity.
struct reply {
  enum class shape : uint8_t {
    /// Server, Date and X-Request-Id, then `fields` in their order.
    fields,
    /// A 200 with a cached document: the fixed header of every document
    /// plus its ETag and length (the most frequent answer, serialized
    /// without a field list).
    document,
  };

  unsigned status = 200;
  shape form = shape::fields;
  /// shape::document: the Cache-Status line the fixed header ends with.
  cache_status cache_result = cache_status::none;
  std::vector<header_field> fields;
  /// What is sent after the header: empty for HEAD, else a view into
  /// owned_body or into doc.
  std::string_view body;
  std::string owned_body;
  /// Keeps `body` alive while it points into a cached document, until written.
  doc_ptr doc;

  void add(std::string_view name, std::string_view value) { fields.push_back({name, std::string{value}}); }
  /// The field's value, or empty when it is not there (for tests and logs).
  std::string_view field(std::string_view name) const noexcept {
    for (auto& f : fields)
      if (f.name == name)
        return f.value;
    return {};
  }
  void clear() noexcept {
    status = 200;
    form = shape::fields;
    cache_result = cache_status::none;
    fields.clear();
    body = {};
    owned_body.clear();
    doc.reset();
  }
};

} // namespace restcache::http
