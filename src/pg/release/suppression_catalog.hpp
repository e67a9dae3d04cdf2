// A policy's record suppression rule (privrisk.policy_suppression; docs/release.md,
// "Record suppression"): the quasi-identifiers whose released values form the
// classes, the per-class constraints a class must meet to be released, and the
// share of rows that may be withheld.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/postgres.hpp"

namespace privrisk::pg {

struct SuppressionRule {
    std::vector<std::string> quasi_identifiers;
    std::optional<std::string> sensitive;
    std::string constraints;  // the jsonb's text: k, max_risk, l…, t…, delta, max_suppression
};

// The suppression rule of policy `key`, read as the catalog's owner under the
// query's snapshot (`latest`: changes made earlier in the statement); nullopt
// when it has none, or when the catalog predates 0.15.
std::optional<SuppressionRule> find_suppression(const std::string& key, bool latest = false);

// The constraint keys a suppression rule takes: the search's per-class ones and max_suppression.
const std::vector<const char*>& suppression_keys();

}  // namespace privrisk::pg
