// What a class aggregation may hold in memory (audit()'s own, the class tallies'
// states, a parallel read's per-process classes): privrisk.audit_memory_limit,
// registered when the module loads.
#pragma once

#include "common/memory_bound.hpp"
#include "common/postgres.hpp"

namespace privrisk::pg {

extern int audit_memory_limit_kb;  // privrisk.audit_memory_limit
void register_audit_settings();

// What audit()'s own class aggregation may hold: privrisk.audit_memory_limit, at most
// privrisk.memory_limit (a bound the administrator sets for everything that grows).
Size audit_memory_bytes();
// The setting that bounds it now (the smaller of the two), as messages name it.
const char* audit_memory_setting();
// The same bound for a computation of `operation` (the core's MemoryBound).
MemoryBound audit_memory_bound(const char* operation);

}  // namespace privrisk::pg
