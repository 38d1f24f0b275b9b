// SPDX-License-Identifier: Apache-2.0
#include "db/document_pages.hpp"

#include <memory>
#include <vector>

#include "messages/document_encoder.hpp"

namespace restcache {

page_outcome make_page_outcome(pg::document_page page, int64_t total) {
  auto docs = std::make_shared<std::vector<keyed_doc>>();
  docs->reserve(page.documents.size());
  for (size_t i = 0; i < page.documents.size(); ++i) {
    auto& [key, body] = page.documents[i];
    auto rows = i < page.rows_of.size() ? std::move(page.rows_of[i]) : std::vector<std::string>{};
    docs->push_back(keyed_doc{std::move(key), make_doc(std::move(body), std::move(rows))});
  }
  page_outcome out;
  out.docs = std::move(docs);
  out.last_key = std::move(page.last_key);
  out.rows = page.rows;
  out.total = total;
  return out;
}

} // namespace restcache
