#include "disclosure_rules.hpp"

#include <algorithm>

namespace privrisk {

int released_level(const DisclosureRule* rules, const bool* disclosed, int count, int height) {
    int level = 0;
    for (int i = 0; i < count; ++i)
        if (!disclosed[i]) level = std::max(level, rules[i].op == DisclosureOp::Hide ? height : rules[i].level);
    return level;
}

Value apply_hide(Value value, bool disclose) { return disclose ? value : std::nullopt; }

Value apply_gen(const Hierarchy& h, Value value, int level, bool disclose, std::string& scratch) {
    if (disclose || !value) return value;
    return h.generalize(*value, std::max(level, h.level_of(*value)), scratch);
}

}  // namespace privrisk
