#include "hierarchy/hierarchy.hpp"

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

void Hierarchy::not_in_hierarchy(std::string_view value, const std::string& why) const {
    fail(ErrorKind::InvalidParameter, "value " + quote_value(value) + " is not in hierarchy " + quote_value(name_) +
                                          (why.empty() ? "" : ": " + why));
}

Value Hierarchy::generalize(std::string_view value, int level, std::string& scratch) const {
    if (level < 0 || level > height_)
        fail(ErrorKind::InvalidParameter, "level " + std::to_string(level) + " is out of range for hierarchy " +
                                              quote_value(name_) + " (levels 0.." + std::to_string(height_) + ")");
    Node where = locate(value);
    if (where.level > level)
        fail(ErrorKind::InvalidParameter, "value " + quote_value(value) + " is at level " +
                                              std::to_string(where.level) + " of hierarchy " + quote_value(name_) +
                                              ", above the requested level " + std::to_string(level));
    if (level == height_) return std::nullopt;
    if (level == where.level) return value;
    return ancestor(value, where, level, scratch);
}

bool Hierarchy::generalizes(Value general, Value specific) const {
    if (!general) return true;
    Node g = locate(*general);
    if (!specific) return false;
    Node s = locate(*specific);
    if (g.level < s.level) return false;
    if (g.level == s.level) return *general == *specific;
    std::string scratch;
    return ancestor(*specific, s, g.level, scratch) == *general;
}

bool Hierarchy::consistent(Value a, Value b) const {
    if (!a || !b) {
        if (a) locate(*a);  // still reject values the hierarchy does not know
        if (b) locate(*b);
        return true;
    }
    return generalizes(a, b) || generalizes(b, a);
}

}  // namespace privrisk
