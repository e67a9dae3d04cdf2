// A function of the extension's own schema found by its name and exact argument
// types: for code that calls it, or checks that an install's SQL has it (an
// older install may lack a newer function until ALTER EXTENSION privrisk UPDATE).
#pragma once

#include "common/postgres.hpp"

namespace privrisk::pg {

// privrisk.<name>(argtypes), or InvalidOid when there is none. PostgreSQL code: run it in pg_call.
Oid privrisk_function(const char* name, int nargs, const Oid* argtypes);

}  // namespace privrisk::pg
