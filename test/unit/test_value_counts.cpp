// The entropy aggregates' state: counts by fingerprint, merged and serialized
// like a parallel plan does, against counts kept by value.
#include <gtest/gtest.h>

#include <map>
#include <memory_resource>
#include <random>

#include "information/information.hpp"
#include "information/value_counts.hpp"

using namespace privrisk;

TEST(ValueCounts, EntropiesMatchCountsByValueInAnySplit) {
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 20; ++trial) {
        const int rows = 1 + static_cast<int>(rng() % 5000), xs = 1 + static_cast<int>(rng() % 300),
                  ys = 1 + static_cast<int>(rng() % 7);
        std::map<std::pair<int, int>, int64_t> joint;
        std::map<int, int64_t> mx, my;
        // three "workers", each a state; one is shipped serialized
        std::vector<ValueCounts> parts, singles;
        for (int w = 0; w < 3; ++w) {
            parts.emplace_back(std::pmr::new_delete_resource(), true);
            singles.emplace_back(std::pmr::new_delete_resource(), false);
        }
        for (int r = 0; r < rows; ++r) {
            int x = static_cast<int>(rng() % xs), y = static_cast<int>(rng() % ys);
            ++joint[{x, y}], ++mx[x], ++my[y];
            Fingerprint fx = x == 0 ? bottom_fingerprint() : fingerprint("x" + std::to_string(x));
            Fingerprint fy = fingerprint("y" + std::to_string(y));
            parts[rng() % 3].add(fx, fy);
            singles[rng() % 3].add(fx);
        }
        ValueCounts all(std::pmr::new_delete_resource(), true), single(std::pmr::new_delete_resource(), false);
        all.add_serialized(parts[0].serialize());
        all.merge(parts[1]);
        all.merge(parts[2]);
        single.merge(singles[2]);
        single.add_serialized(singles[0].serialize());
        single.merge(singles[1]);
        auto values = [](const auto& m) {
            std::vector<int64_t> v;
            for (const auto& kv : m) v.push_back(kv.second);
            return v;
        };
        EXPECT_EQ(all.rows(), rows);
        EXPECT_EQ(all.entropy(), entropy_nats(values(joint)));  // exact sums: equal bits
        EXPECT_EQ(all.entropy_x(), entropy_nats(values(mx)));
        EXPECT_EQ(all.entropy_y(), entropy_nats(values(my)));
        EXPECT_EQ(single.entropy(), entropy_nats(values(mx)));
    }
}

TEST(ValueCounts, FingerprintsFrameTheirParts) {
    // ("ab", "c") and ("a", "bc") are different rows; ⊥ differs from the empty string.
    FingerprintBuilder a, b, c, d;
    a.part("ab"), a.part("c");
    b.part("a"), b.part("bc");
    c.bottom();
    d.part("");
    EXPECT_FALSE(a.finish() == b.finish());
    EXPECT_FALSE(c.finish() == d.finish());
    FingerprintBuilder big;  // past the local buffer
    std::string long_part(1000, 'z');
    big.part(long_part), big.part("tail");
    FingerprintBuilder again;
    again.part(long_part), again.part("tail");
    EXPECT_TRUE(big.finish() == again.finish());
}
