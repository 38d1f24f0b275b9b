// SPDX-License-Identifier: Apache-2.0
#pragma once

// Every atom restcache's actors exchange (CAF 0.17: at most 10 characters).

#include <caf/atom.hpp>

namespace restcache {

using caf::get_atom; // lookup of a cached document
using caf::put_atom; // a document read by cache.populate
using gzip_atom = caf::atom_constant<caf::atom("gzip")>; // a lookup for a client that accepts gzip

using invalidate_atom = caf::atom_constant<caf::atom("invalidate")>;
using filled_atom = caf::atom_constant<caf::atom("filled")>;
using fill_tmo_atom = caf::atom_constant<caf::atom("fill_tmo")>;
/// A lookup that must not be answered from the tiers (Cache-Control: no-cache).
using refill_atom = caf::atom_constant<caf::atom("refill")>;
/// A fill a standby could not answer yet: try again (a standby or the primary).
using refetch_atom = caf::atom_constant<caf::atom("refetch")>;
using borrow_atom = caf::atom_constant<caf::atom("borrow")>;
using release_atom = caf::atom_constant<caf::atom("release")>;
using conn_up_atom = caf::atom_constant<caf::atom("conn_up")>;
using conn_down_atom = caf::atom_constant<caf::atom("conn_down")>;
using regrace_atom = caf::atom_constant<caf::atom("regrace")>;
using page_atom = caf::atom_constant<caf::atom("page")>;
using retry_atom = caf::atom_constant<caf::atom("retry")>;
using flush_atom = caf::atom_constant<caf::atom("flush")>;
using flush_del_atom = caf::atom_constant<caf::atom("flush_del")>;
using drain_atom = caf::atom_constant<caf::atom("drain")>;
using clear_atom = caf::atom_constant<caf::atom("clear")>;
using watermark_atom = caf::atom_constant<caf::atom("watermark")>;
using history_atom = caf::atom_constant<caf::atom("history")>;     // the tiers now hold another history
using rebase_atom = caf::atom_constant<caf::atom("rebase")>;       // the watermark restarts in another feed's positions
using changes_atom = caf::atom_constant<caf::atom("changes")>;
using listen_up_atom = caf::atom_constant<caf::atom("listen_up")>;
using listen_dn_atom = caf::atom_constant<caf::atom("listen_dn")>;
using done_atom = caf::atom_constant<caf::atom("done")>;
using ids_atom = caf::atom_constant<caf::atom("ids")>;             // department ids loaded
using inspect_atom = caf::atom_constant<caf::atom("inspect")>;     // describe yourself (actor_report)
using mailbox_atom = caf::atom_constant<caf::atom("mailbox")>;     // once a second: store your mailbox size
using list_atom = caf::atom_constant<caf::atom("list")>;           // inspector: every long-lived actor
using key_atom = caf::atom_constant<caf::atom("key")>;
using passed_atom = caf::atom_constant<caf::atom("passed")>;     // the WAL feed applied everything up to an LSN             // inspector: one key's documents

} // namespace restcache
