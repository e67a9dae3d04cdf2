// privrisk.memory_limit: what one aggregate state, search, identification or
// release cache may hold in memory before it stops with an error that says so,
// or (the release cache) stops growing (docs/memory.md), instead of growing
// until the server kills the backend.
#pragma once

#include <cstddef>

#include "common/memory_bound.hpp"

namespace privrisk::pg {

extern int memory_limit_kb;

void register_memory_limit();  // from _PG_init

// The bound as the core takes it.
MemoryBound memory_bound();

}  // namespace privrisk::pg
