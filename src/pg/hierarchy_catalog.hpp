// Hierarchies as stored in privrisk.hierarchy / privrisk.hierarchy_leaf, and
// the per-backend cache of their parsed form (SPEC §4.1).
#pragma once

#include <cstdint>
#include <string_view>

#include "hierarchy.hpp"
#include "postgres.hpp"

namespace privrisk::pg {

// The hierarchy `name`, parsed from the catalog on first use in this backend.
// The reference stays valid until the cache is flushed (a catalog change);
// hierarchy_for_call() below checks for that before reusing it across calls.
const Hierarchy& cached_hierarchy(std::string_view name);

// Changes whenever the cache is flushed: a reference from cached_hierarchy()
// taken under another generation may dangle.
uint64_t hierarchy_generation();

// Registers the invalidation callback; called once from _PG_init.
void register_hierarchy_cache();

// Per-call-site memo kept in *slot (fn_extra by default): skips the name
// lookup while the cache is unchanged.
const Hierarchy& hierarchy_for_call(FunctionCallInfo fcinfo, text* name, void** slot = nullptr);

}  // namespace privrisk::pg
