// SPDX-License-Identifier: Apache-2.0
#pragma once

// The once-a-second mailbox report of a long-lived actor. In CAF 0.17 only
// the owning actor may read its mailbox size, so the actor itself stores it
// into its metrics when it receives mailbox_atom; this helper sends it that
// message once per interval.
//
// The timer lives in a small hidden helper actor that holds only a weak
// reference to its parent: a pending timer never keeps the parent alive (an
// actor nobody references any more still terminates) nor delays its exit,
// and the helper quits as soon as its parent is down.

#include <caf/fwd.hpp>

#include <atomic>
#include <chrono>

#include "actors/actors.hpp"

namespace restcache {

/// The number of messages waiting in `self`'s mailbox; only `self` may ask.
/// The one place that reads it: CAF 0.17's queue casts its sentinel node to
/// a message while moving new messages in (UB that UndefinedBehaviorSanitizer's
/// vptr check reports at random), so this file is compiled without that check.
size_t mailbox_size(caf::scheduled_actor* self);

/// What every long-lived actor's report starts with: its name, id and
/// mailbox size (read by the actor itself, the only one allowed to), which
/// also goes into `gauge` for /metrics when given.
actor_report begin_report(const char* name, caf::scheduled_actor* self, std::atomic<int64_t>* gauge);

/// Starts sending `self` a mailbox_atom every `every` (the first after one
/// interval). Call once, from the actor's behaviour function.
void start_mailbox_reports(caf::local_actor* self,
                           std::chrono::milliseconds every = mailbox_report_interval);

} // namespace restcache
