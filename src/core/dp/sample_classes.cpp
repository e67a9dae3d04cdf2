#include "dp/sample_classes.hpp"
#include "common/no_postgres.hpp"

#include <algorithm>

namespace privrisk {

SampleClasses::Released SampleClasses::finish(int64_t k, const DpRandom& random,
                                              const std::function<bool(uint32_t, uint32_t)>& before) const {
    Released r;
    for (uint32_t c = 0; c < rows_.size(); ++c)
        if (rows_[c] >= k) {
            r.classes.push_back(c);
            r.rows += rows_[c];
        }
    std::sort(r.classes.begin(), r.classes.end(), before);
    random.shuffle(r.classes);
    return r;
}

}  // namespace privrisk
