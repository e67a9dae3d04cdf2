// One vocabulary of bounds (docs/glossary.md, "Bounds"): every key that an
// audit() option, a search() constraint or a risk profile can hold, once, with
// its type and range, its default, what it bounds and how, and where it is
// accepted. The three check their
// jsonb against these rows and nothing else. Two keys keep, in audit() options
// only, the names they had there before: kmax for ck_k and sensitive_hierarchy
// for t_hierarchy.
#pragma once

#include <string_view>
#include <vector>

#include "profiles/risk_profile.hpp"

namespace privrisk {

// Where a key is accepted; kDictionaryOption: the keys that describe a dictionary
// (dictionary_risk's options, and audit() and search() report dt_risk with them).
enum BoundUse : unsigned { kAuditOption = 1, kSearchConstraint = 2, kProfileKey = 4, kDictionaryOption = 8 };

struct BoundKey {
    enum Kind { Integer, Number, Text, TextArray, NumberArray } kind;
    const char* name;
    double lo = 0, hi = 0;             // Integer, Number, NumberArray elements
    bool lo_open = false;              // Number: lo itself excluded
    std::vector<const char*> choices;  // Text: one of these, when not empty
    const char* fallback = nullptr;    // the default, as text
    unsigned uses = 0;                 // BoundUse bits
    const char* alias = nullptr;       // its older name, accepted in audit() options
    // A threshold: what it bounds (audit()'s key; "l_*" and "t_*" take the
    // kind from l_kind and t_kind), and how.
    const char* measure = nullptr;
    Comparison comparison = Comparison::AtLeast;
    const char* qualifies = nullptr;  // a qualifier: the threshold it qualifies
};

const std::vector<BoundKey>& bound_keys();
// The row named `name` (or whose alias it is), or nullptr.
const BoundKey* find_bound_key(std::string_view name);
// The row of `name`, which must exist (an internal error otherwise).
const BoundKey& bound_key(std::string_view name);

}  // namespace privrisk
