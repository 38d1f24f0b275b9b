// SPDX-License-Identifier: Apache-2.0
#pragma once

// PostgreSQL's WAL positions (pg_lsn, "16/B374D848") as the 64-bit numbers
// they stand for, so they compare and travel as integers. 0 is "none": no
// position is needed, or none is known.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace restcache {

/// "X/Y" (hexadecimal halves) -> (X << 32) | Y; nullopt for anything else.
std::optional<uint64_t> parse_wal_lsn(std::string_view text) noexcept;

/// The same position written as PostgreSQL writes it.
std::string format_wal_lsn(uint64_t lsn);

} // namespace restcache
