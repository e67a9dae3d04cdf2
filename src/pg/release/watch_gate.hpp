// A watched release view that fails closed refuses reads while its last
// verdict fails (docs/watch.md). The release scan asks here, before any row.
#pragma once

#include "common/postgres.hpp"

namespace privrisk::pg {

// Errors when `view`, or another release view of its policy, is watched with
// fail_closed and its last verdict failed, unless the current user owns
// `source` (the steward, who reads the view to fix it and whose recheck must
// audit it). The error names the view, the profile, the failed thresholds,
// when and by whom, and what the steward can do.
void check_view_open(Oid view, Oid source);

}  // namespace privrisk::pg
