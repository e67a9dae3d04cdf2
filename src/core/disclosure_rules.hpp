// How the disclosure rules of one column combine (SPEC §2; digest 000 §3.A-B,
// Prop. 3). A rule is hide or gen(level) with a condition F evaluated on the
// ORIGINAL row; rows where F is TRUE keep the value. Every rule whose condition
// is not TRUE raises the released level to its own (hide: the height, ⊥); the
// value is released at the highest level raised. Taking a maximum is what makes
// rules commute and associate, and equals applying them one after another.
#pragma once

#include <string>
#include <vector>

#include "hierarchy.hpp"

namespace privrisk {

enum class DisclosureOp { Hide, Gen };

struct DisclosureRule {
    DisclosureOp op;
    int level;  // gen: the level it generalizes to (1..height-1 or height); unused for hide
};

// The level at which a column's value is released: 0 = as is, `height` = ⊥.
// disclosed[i] says whether rule i's condition is TRUE on the original row.
// A column without a hierarchy has height 1 (hide only).
// The level a rule raises its column to when its condition is not TRUE.
inline int rule_level(const DisclosureRule& rule, int height) {
    return rule.op == DisclosureOp::Hide ? height : rule.level;
}

// Inline: the release scan calls it for every column of every row.
inline int released_level(const DisclosureRule* rules, const bool* disclosed, int count, int height) {
    int level = 0;
    for (int i = 0; i < count; ++i)
        if (!disclosed[i] && rule_level(rules[i], height) > level) level = rule_level(rules[i], height);
    return level;
}

// The paper's operators on one value, one rule at a time (the reference the
// combined form is tested against). `value` may already be generalized; a
// generalization never makes it more specific.
Value apply_hide(Value value, bool disclose);
Value apply_gen(const Hierarchy& h, Value value, int level, bool disclose, std::string& scratch);

}  // namespace privrisk
