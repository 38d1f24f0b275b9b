// SPDX-License-Identifier: Apache-2.0
#pragma once

// The OpenAPI 3.0.3 description of what a daemon serves, generated: the
// engine's own paths and components (http/openapi_base.json, compiled in),
// one path per kind of the installed catalogue (GET and HEAD of its route,
// its key's parameter from its key type, its document's schema from its
// plan), and a module's own paths and components (the demo's writes and
// lists), merged in: the methods of one path are joined, a module's member
// replaces the base's of the same name.

#include <stdexcept>
#include <string>
#include <string_view>

namespace restcache::http {

/// The engine's part, compiled in from http/openapi_base.json.
extern const char* const openapi_base;

/// The document for the installed catalogue and `module_part` (a JSON
/// object of the same shape as the base, or empty), as JSON indented by two
/// spaces, ending with a newline. Throws std::invalid_argument when a part
/// is not a JSON object.
std::string openapi_document(std::string_view module_part = {});

} // namespace restcache::http
