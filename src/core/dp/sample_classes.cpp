#include "dp/sample_classes.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

SampleClasses::Released SampleClasses::finish(int64_t k, const DpRandom& random) const {
    Released r;
    for (uint32_t c = 0; c < rows_.size(); ++c)
        if (rows_[c] >= k) {
            r.classes.push_back(c);
            r.rows += rows_[c];
        }
    random.shuffle(r.classes);
    return r;
}

}  // namespace privrisk
