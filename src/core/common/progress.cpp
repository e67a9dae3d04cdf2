#include "common/progress.hpp"

#include <cmath>
#include <cstdio>

#include "common/no_postgres.hpp"

namespace privrisk {

std::optional<double> Progress::remaining_s() const {
    if (done <= 0 || total <= 0 || done > total) return std::nullopt;
    return elapsed_s / double(done) * double(total - done);
}

std::string Progress::text(const char* unit, const std::string& detail) const {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%lld of %lld %s", static_cast<long long>(done), static_cast<long long>(total),
                  unit);
    std::string out = buf;
    if (!detail.empty()) out += " (" + detail + ")";
    std::snprintf(buf, sizeof buf, ", %.1f s", elapsed_s);
    out += buf;
    if (auto left = remaining_s()) {
        std::snprintf(buf, sizeof buf, ", %sabout %.0f s left", upper_estimate ? "at most " : "", std::ceil(*left));
        out += buf;
    }
    return out;
}

}  // namespace privrisk
