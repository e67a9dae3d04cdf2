// privrisk.memory_limit: what one aggregate state or one search may hold in
// memory before it stops with an error that says so (docs/memory.md), instead
// of growing until the server kills the backend.
#pragma once

#include <cstddef>

namespace privrisk::pg {

extern int memory_limit_kb;

void register_memory_limit();  // from _PG_init

// An ERROR (54000) when `bytes` pass the limit; `what` names the state ("entropy: the
// distinct values") and `hint` what to do.
void check_memory_limit(std::size_t bytes, const char* what, const char* hint);

}  // namespace privrisk::pg
