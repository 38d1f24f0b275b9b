// SPDX-License-Identifier: Apache-2.0
#include "demo/demo_catalogue.hpp"

#include <stdexcept>

#include "declarations/declaration_file.hpp"

namespace restcache::demo {

std::vector<doc_kind_entry> demo_kinds() {
  auto declared = declarations::parse_declarations(demo_declarations, "demo/demo.toml");
  // The file is compiled in, and the demo_catalogue suite reads it: a
  // refusal here is a build that never passed its tests.
  if (!declared.ok())
    throw std::logic_error("the demo's declarations are refused:\n" + declared.error_text());
  return std::move(declared.kinds);
}

void install_demo_catalogue() {
  install_catalogue(demo_kinds());
}

} // namespace restcache::demo
