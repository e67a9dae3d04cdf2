// Names, values and types written into SQL that privrisk runs: each quoted by
// PostgreSQL's own functions, so nothing the caller chose is spliced as is.
#pragma once

#include <string>

#include "common/postgres.hpp"

namespace privrisk::pg {

std::string sql_identifier(const std::string& name);  // quote_identifier
std::string sql_literal(const std::string& text);     // quote_literal_cstr
std::string sql_type(Oid type, int32 typmod);         // schema-qualified, with its typmod

}  // namespace privrisk::pg
