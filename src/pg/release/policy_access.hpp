// Who may do what with a policy (docs/security.md): its source, its owner, the
// readers of its release.
#pragma once

#include <string>

#include "release/policy_catalog.hpp"

namespace privrisk::pg {

// The source of a policy, checked to exist and to be a table, a partitioned
// table or a materialized view without row-level security (the scan reads it
// directly). Returns it opened with AccessShareLock.
Relation open_policy_source(const Policy& policy);

// Errors unless the current user owns `source` (policies are the owner's to write).
void require_source_owner(Oid source, const char* action);

// The current user owns `source` or holds SELECT on it (may read it anyway).
bool reads_source(Oid source);

// Errors unless every column of the source a rule or a label named when the
// policy's owner last approved it still stands at its number with its name and
// type; the error names the policy and the column.
void check_bound_columns(const Policy& policy, Relation source);

}  // namespace privrisk::pg
