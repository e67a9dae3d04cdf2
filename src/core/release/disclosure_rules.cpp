#include "release/disclosure_rules.hpp"

#include <algorithm>

#include "common/no_postgres.hpp"

namespace privrisk {

Value apply_hide(Value value, bool disclose) { return disclose ? value : std::nullopt; }

Value apply_gen(const Hierarchy& h, Value value, int level, bool disclose, std::string& scratch) {
    if (disclose || !value) return value;
    return h.generalize(*value, std::max(level, h.level_of(*value)), scratch);
}

}  // namespace privrisk
