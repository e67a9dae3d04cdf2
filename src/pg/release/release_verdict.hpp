// create_release_view(…, profile => …) (docs/release.md, "A view with a
// profile"): the new view's release is checked against a risk profile before
// the call returns; a failing verdict refuses the view, and so creates
// nothing, unless the owner overrides it, which the audit log records.
#pragma once

#include <string>

#include "common/postgres.hpp"

namespace privrisk::pg {

// Audits `view` (just created, of policy `policy`) with `profile`, as the
// caller. Publishable: returns. Not publishable: an ERROR naming the failing
// thresholds and their values (the caller's statement then rolls the view back),
// or with `override` a row in privrisk.audit_log (who, when, the view, the
// policy, the profile, the verdict) and a WARNING.
void bind_verdict(Oid view, const std::string& policy, const std::string& profile, bool override);

}  // namespace privrisk::pg
