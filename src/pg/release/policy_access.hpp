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

// The current user may read the release of `policy`: reads the source, or
// holds SELECT on one of the policy's release views.
bool may_read_release(const Policy& policy);

// The attribute number of a policy's `column` in its `source` (user columns only).
AttrNumber policy_column_attno(Relation source, const std::string& column, const std::string& policy);

}  // namespace privrisk::pg
