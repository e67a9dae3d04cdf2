// How the disclosure rules of one column combine (docs/glossary.md; [LSFB09],
// Prop. 3). A rule is hide or gen(level) with a condition F evaluated on the
// ORIGINAL row; rows where F is TRUE keep the value. Every rule whose condition
// is not TRUE raises the released level to its own (hide: the height, ⊥); the
// value is released at the highest level raised. Taking a maximum is what makes
// rules commute and associate, and equals applying them one after another.
#pragma once

#include <string>
#include <vector>

#include "hierarchy/hierarchy.hpp"

namespace privrisk {

// Pseudonymize: the value's keyed hash (release/pseudonym.hpp), level 1 of a
// pseudonymized column's two (⊥ is 2): it discloses equality, less than the value, more than ⊥.
enum class DisclosureOp { Hide, Gen, Pseudonymize };

struct DisclosureRule {
    DisclosureOp op;
    int level;  // gen: the level it generalizes to (1..height-1 or height); unused otherwise
};

// The level a rule raises its column to when its condition is not TRUE. A
// column without a hierarchy has height 1 (hide only); `height` is ⊥.
inline int rule_level(const DisclosureRule& rule, int height) {
    if (rule.op == DisclosureOp::Pseudonymize) return 1;
    return rule.op == DisclosureOp::Hide ? height : rule.level;
}

// The level at which a column's value is released: 0 = as is, ⊥ = height. Rule
// i raises it to raised(i) unless disclosed(i), its condition, is TRUE on the
// original row. Inline and without a branch on the row's data (selects, not
// jumps): the release scan calls it for every ruled column of every row, and
// conditions that hold on a random third of the rows would mispredict.
template <typename Raised, typename Disclosed>
inline int released_level(int count, Raised raised, Disclosed disclosed) {
    int level = 0;
    for (int i = 0; i < count; ++i) {
        int r = raised(i) & -static_cast<int>(!disclosed(i));  // a mask: compilers keep ?: a jump
        level = r > level ? r : level;
    }
    return level;
}
inline int released_level(const DisclosureRule* rules, const bool* disclosed, int count, int height) {
    return released_level(
        count, [&](int i) { return rule_level(rules[i], height); }, [&](int i) { return disclosed[i]; });
}

// The paper's operators on one value, one rule at a time (the reference the
// combined form is tested against). `value` may already be generalized; a
// generalization never makes it more specific.
Value apply_hide(Value value, bool disclose);
Value apply_gen(const Hierarchy& h, Value value, int level, bool disclose, std::string& scratch);

}  // namespace privrisk
