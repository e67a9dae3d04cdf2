// The verdict of a risk profile on a release (docs/profiles.md): each threshold
// against the release's measures, as jsonb text. audit(…, profile) and check()
// give it from audit()'s report; search(…, profile) from the measures of the
// node it found, out of its own read.
#pragma once

#include <functional>
#include <optional>
#include <string>

#include "common/spi.hpp"
#include "profiles/release_measures.hpp"
#include "profiles/risk_profile.hpp"

namespace privrisk::pg {

// A threshold's measure of the release, or nullopt with `why` set. Never asked
// for epsilon: that comes from the budget ledger of `source`.
using ReleaseMeasure = std::function<std::optional<double>(const Threshold&, const RiskProfile&, std::string* why)>;

// The measures audit(…, profile) reports for `table`: with the profile's
// risk_threshold, l_c, sensitive hierarchy and ck_k (kmax).
ReleaseMeasures profile_release_measures(const ContingencyTable& table, bool sensitive, const RiskProfile& profile);

// Through `spi` (connected by the caller): the profile, and epsilon's ledger.
std::string profile_verdict(Spi& spi, const std::string& name, Oid source, const ReleaseMeasure& measure_of);

}  // namespace privrisk::pg
