// SPDX-License-Identifier: Apache-2.0
#include "db/document_pages.hpp"

#include <memory>
#include <vector>

#include "messages/document_encoder.hpp"

namespace restcache {

page_outcome make_page_outcome(pg::document_page page, int64_t total) {
  auto docs = std::make_shared<std::vector<keyed_doc>>();
  docs->reserve(page.documents.size());
  for (auto& [key, body] : page.documents)
    docs->push_back(keyed_doc{std::move(key), make_doc(std::move(body))});
  page_outcome out;
  out.docs = std::move(docs);
  out.last_key = std::move(page.last_key);
  out.rows = page.rows;
  out.total = total;
  return out;
}

} // namespace restcache
