// The release scan: privrisk.release(policy) in FROM planned as
// Custom Scan (PrivriskRelease) (docs/release.md).
#pragma once

#include "common/postgres.hpp"

namespace privrisk::pg {

// The row estimate of release(policy) (its call's arguments, with the view's
// mark if any) in the planning of `root` (NULL outside one), or -1 when
// unknown; the policy is read once per planning.
double release_rows_estimate(PlannerInfo* root, List* args);

// Registers the scan's methods and the planner hook; called once from _PG_init.
void register_release_scan();

}  // namespace privrisk::pg
