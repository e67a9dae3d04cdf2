#include "common/selftest.hpp"

#include <vector>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

long selftest_descend(int depth, bool fail_at_bottom) {
    std::vector<std::string> frame(8, std::string(100, 'x'));  // heap memory a skipped destructor would leak
    if (depth <= 0) {
        if (fail_at_bottom) fail(ErrorKind::InvalidParameter, "selftest: thrown at the bottom of the descent");
        return static_cast<long>(frame.size());
    }
    return static_cast<long>(frame.size()) + selftest_descend(depth - 1, fail_at_bottom);
}

}  // namespace privrisk
