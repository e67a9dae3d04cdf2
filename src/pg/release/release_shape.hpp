// The columns of a policy's release: every column of the source in order, a
// generalized or pseudonymized one as text, any other with its own type (docs/release.md), with the
// rules that apply to each. Re-checks what a hand-edited catalog could break.
#pragma once

#include <string>
#include <vector>

#include "release/policy_catalog.hpp"

namespace privrisk::pg {

struct ReleasedColumn {
    std::string name;
    AttrNumber attno;  // in the source
    Oid type;          // as released: text when generalized
    int32 typmod;
    Oid source_type;
    std::string hierarchy;   // of its gen rules; empty when it has none
    int height;              // of that hierarchy; 1 without (hide: ⊥ is level 1)
    std::vector<int> rules;  // indexes into Policy::rules
    bool pseudonymized;      // a pseudonymize rule names it (height 2, no hierarchy)
};

// The height of a gen rule's hierarchy, checked to exist, to hold the rule's
// level (1..height) and to be the version the rule was approved with (a
// hierarchy replaced since is refused until the policy's owner approves it
// with refresh_policy); `who` names the rule in errors, `policy` its policy.
int gen_rule_height(const PolicyRule& rule, const std::string& who, const std::string& policy);

std::vector<ReleasedColumn> release_shape(const Policy& policy, Relation source);
std::vector<ReleasedColumn> release_shape(const Policy& policy);  // opens the source itself

// The release's columns as SQL, "name type, …": a column definition list, or
// a foreign table's columns.
std::string column_definitions(const std::vector<ReleasedColumn>& shape);

}  // namespace privrisk::pg
