// The coordinator's pin on a shard's release (docs/scale-out.md): checked by
// the shard's release scan before its first row, refused anywhere else.
#pragma once

#include <string>

#include "release/policy_catalog.hpp"

namespace privrisk::pg {

// The coordinator's pins in a shard's release scan: each restriction clause
// privrisk.release_is_pinned(…, constant pin) is taken out of `restrictinfos`
// (the scan checks it once, in verify_pins) and its pin returned, as String nodes.
List* take_pins(List** restrictinfos);

// Checked when the scan of `policy`'s release begins, before any row or rule:
// each pin names this policy; `stmt` (the query) reads nothing but the policy's
// registered release views and its release(); the reader may not read the
// source (else a rule's error would carry a value to the coordinator); the
// digest, with the table the policy reads, is the pinned one.
void verify_pins(const Policy& policy_with_default_rules, List* pins, PlannedStmt* stmt);

// The error for a pin evaluated anywhere but in its release scan: it ran on the
// coordinator, or the shard's relation is not the policy's release view.
[[noreturn]] void fail_unbound_pin(const std::string& pin);

// Installs the planner hook that refuses a plan evaluating a pin on rows
// (release_is_pinned left outside a release scan).
void register_pin_check();

}  // namespace privrisk::pg
