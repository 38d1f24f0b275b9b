// SPDX-License-Identifier: Apache-2.0
#include "tools/freshness/checked_doc.hpp"

#include <cctype>
#include <stdexcept>

#include "messages/doc_catalogue.hpp"
#include "messages/doc_key.hpp"
#include "persistence/pg/doc_queries.hpp"

namespace restcache::freshness {

std::string checked_doc::target() const {
  const auto* entry = find_doc_kind(kind);
  std::string t = entry != nullptr ? entry->route : "/" + kind + "/";
  static constexpr char hex[] = "0123456789ABCDEF";
  for (unsigned char ch : key) {
    if (std::isalnum(ch) || ch == '-' || ch == '.' || ch == '_' || ch == '~') {
      t += static_cast<char>(ch);
    } else {
      t += '%';
      t += hex[ch >> 4];
      t += hex[ch & 15];
    }
  }
  return t;
}

std::optional<std::string> truth(pg::connection& c, const checked_doc& doc) {
  const auto* entry = find_doc_kind(doc.kind);
  if (entry == nullptr)
    throw std::runtime_error("no kind '" + doc.kind + "' is installed");
  doc_key key;
  if (parse_key(entry->key, entry->kind, doc.key, key) != key_error::none)
    throw std::runtime_error("'" + doc.key + "' is no key of kind '" + doc.kind + "'");
  auto text = pg::read_document(c, key);
  return text.empty() ? std::nullopt : std::optional<std::string>{std::move(text)};
}

} // namespace restcache::freshness
