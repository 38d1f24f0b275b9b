// SPDX-License-Identifier: Apache-2.0
#include "messages/document_gzip.hpp"

#include <zlib.h>

#include <stdexcept>

namespace restcache {

std::string gzip_compress(std::string_view body) {
  z_stream zs{};
  // windowBits 15 + 16: a gzip header and trailer instead of zlib's.
  if (deflateInit2(&zs, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK)
    throw std::runtime_error("deflateInit2 failed");
  std::string out;
  out.resize(deflateBound(&zs, static_cast<uLong>(body.size())));
  zs.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(body.data()));
  zs.avail_in = static_cast<uInt>(body.size());
  zs.next_out = reinterpret_cast<Bytef*>(out.data());
  zs.avail_out = static_cast<uInt>(out.size());
  int rc = deflate(&zs, Z_FINISH);
  deflateEnd(&zs);
  if (rc != Z_STREAM_END)
    throw std::runtime_error("deflate failed");
  out.resize(zs.total_out);
  out.shrink_to_fit(); // kept with the document: its capacity is charged
  return out;
}

std::string gzip_etag(std::string_view etag) {
  if (etag.size() >= 2 && etag.back() == '"')
    return std::string{etag.substr(0, etag.size() - 1)} + "-gz\"";
  return std::string{etag};
}

std::unique_ptr<const encoded_variant> make_gzip_variant(const cached_doc& doc) {
  return std::make_unique<const encoded_variant>(encoded_variant{gzip_compress(doc.body), gzip_etag(doc.etag)});
}

} // namespace restcache
