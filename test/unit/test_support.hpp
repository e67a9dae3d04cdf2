// Shared by the unit tests.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "classes/contingency_table.hpp"
#include "common/error.hpp"

namespace privrisk_test {

// The message of the privrisk::Error that f throws, or "no error".
inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const privrisk::Error& e) {
        return e.what();
    }
    return "no error";
}

// The rare-cancer instance of [BS08], whose published numbers the measures tests
// check: two classes, 10 rows (3 cancer) and 990 rows (7 cancer).
inline privrisk::ContingencyTable rare_cancer() {
    using privrisk::ContingencyTable;
    ContingencyTable t;
    std::vector<ContingencyTable::Pair> a = {{t.intern(std::string_view("cancer")), 3}, {t.intern(std::string_view("no")), 7}};
    std::vector<ContingencyTable::Pair> b = {{t.intern(std::string_view("cancer")), 7}, {t.intern(std::string_view("no")), 983}};
    t.add_class(a);
    t.add_class(b);
    t.canonicalize();
    return t;
}

}  // namespace privrisk_test
