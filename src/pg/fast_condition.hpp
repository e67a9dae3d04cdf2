// Rule conditions of the common shapes, evaluated natively per row: a column
// compared with a constant (integers; text equality under a deterministic
// collation), a boolean column, IS [NOT] NULL, and a flat AND or OR of those.
// Anything else runs through PostgreSQL's expression evaluator. Both give the
// same answer (release.sql checks it on random rows); only TRUE discloses.
#pragma once

#include "postgres.hpp"

namespace privrisk::pg {

struct FastCondition;

// The native form of a planned condition over the source's columns (Vars of
// range table entry 1), allocated in the current memory context; NULL when
// its shape is not one of the above.
FastCondition* compile_fast_condition(Expr* condition);

// Whether the condition is TRUE on a source row deformed into values/isnull
// (a NULL or FALSE condition protects). PostgreSQL-style: may detoast a value
// in the current memory context, never throws.
bool fast_condition_holds(const FastCondition* condition, const Datum* values, const bool* isnull);

}  // namespace privrisk::pg
