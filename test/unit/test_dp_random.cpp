// The release randomness: per-row draws that depend only on the row's identity
// and the secret, rates that match the probability, and uniform shuffles.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <cmath>
#include <map>
#include <numeric>
#include <random>

#include "dp/dp_random.hpp"
#include "common/error.hpp"
#include "dp/sample_classes.hpp"

using namespace privrisk;

namespace {

struct RowId {
    uint32_t table;
    uint32_t block;
    uint16_t offset;
};

std::vector<char> id_bytes(uint32_t i) {
    RowId r{16384u, i / 100, static_cast<uint16_t>(i % 100 + 1)};
    std::vector<char> b(10);
    std::memcpy(b.data(), &r.table, 4);
    std::memcpy(b.data() + 4, &r.block, 4);
    std::memcpy(b.data() + 8, &r.offset, 2);
    return b;
}

}  // namespace

TEST(DpRandom, ThresholdRoundsDown) {
    EXPECT_EQ(DpRandom::inclusion_threshold(0), 0u);
    EXPECT_EQ(DpRandom::inclusion_threshold(0.5), uint64_t(1) << 63);
    for (double p : {1e-9, 0.1, 0.3678794411714423, 0.6321205588285577, 0.999999})
        EXPECT_LE(std::ldexp(double(DpRandom::inclusion_threshold(p)), -64), p) << p;
    EXPECT_THROW(DpRandom::inclusion_threshold(1.0), Error);
    EXPECT_THROW(DpRandom::inclusion_threshold(-0.1), Error);
    EXPECT_THROW(DpRandom::inclusion_threshold(std::nan("")), Error);
}

TEST(DpRandom, UnitIsInTheOpenClosedInterval) {
    EXPECT_GT(DpRandom::unit(0), 0.0);
    EXPECT_EQ(DpRandom::unit(~uint64_t(0)), 1.0);
}

TEST(DpRandom, SeededRunsRepeatAndSeedsDiffer) {
    DpRandom a = DpRandom::from_seed(42), b = DpRandom::from_seed(42), c = DpRandom::from_seed(43);
    int same = 0;
    for (uint32_t i = 0; i < 1000; ++i) {
        auto id = id_bytes(i);
        EXPECT_EQ(a.row_word(DpStream::Sample, id.data(), id.size()), b.row_word(DpStream::Sample, id.data(), id.size()));
        same += a.row_word(DpStream::Sample, id.data(), id.size()) == c.row_word(DpStream::Sample, id.data(), id.size());
        // streams are independent draws for the same row
        EXPECT_NE(a.row_word(DpStream::Sample, id.data(), id.size()), a.row_word(DpStream::Choice, id.data(), id.size()));
    }
    EXPECT_EQ(same, 0);
    EXPECT_EQ(a.run_words(DpStream::Shuffle, 8), b.run_words(DpStream::Shuffle, 8));
    EXPECT_NE(a.run_words(DpStream::Shuffle, 8), c.run_words(DpStream::Shuffle, 8));
    DpRandom::Secret s1{}, s2{};
    s2[31] = 1;
    EXPECT_NE(DpRandom(s1).row_word(DpStream::Sample, "x", 1), DpRandom(s2).row_word(DpStream::Sample, "x", 1));
}

// Each row is sampled with probability p: the count over 1,000,000 rows is
// within 4 standard deviations of p·n, for several p and seeds; the decision
// is the same whatever order the rows are visited in.
TEST(DpRandom, SamplingRateAndOrderInvariance) {
    const uint32_t n = 1'000'000;
    for (double p : {0.05, 0.3934693402873666, 0.6321205588285577, 0.95})
        for (int64_t seed : {1, 2, 3}) {
            DpRandom r = DpRandom::from_seed(seed);
            uint64_t t = DpRandom::inclusion_threshold(p);
            long count = 0;
            for (uint32_t i = 0; i < n; ++i) {
                auto id = id_bytes(i);
                count += r.sampled(id.data(), id.size(), t);
            }
            double sd = std::sqrt(n * p * (1 - p));
            EXPECT_LE(std::fabs(count - n * p), 4 * sd) << p << " seed " << seed;
        }
    DpRandom r = DpRandom::from_seed(7);
    uint64_t t = DpRandom::inclusion_threshold(0.5);
    std::vector<uint32_t> order(5000);
    std::iota(order.begin(), order.end(), 0);
    std::vector<bool> forward(order.size());
    for (uint32_t i : order) forward[i] = r.sampled(id_bytes(i).data(), 10, t);
    std::shuffle(order.begin(), order.end(), std::mt19937(5));
    for (uint32_t i : order) EXPECT_EQ(r.sampled(id_bytes(i).data(), 10, t), forward[i]);
}

// Every permutation of three items is equally likely across seeds: chi-square
// with 5 degrees of freedom, 6,000 seeds, below the 0.9999 quantile (25.74).
TEST(DpRandom, ShuffleIsUniform) {
    std::map<std::vector<int>, int> seen;
    const int runs = 6000;
    for (int seed = 0; seed < runs; ++seed) {
        std::vector<int> v{0, 1, 2};
        DpRandom::from_seed(seed).shuffle(v);
        ++seen[v];
    }
    ASSERT_EQ(seen.size(), 6u);
    double chi2 = 0, expected = runs / 6.0;
    for (auto& [perm, count] : seen) chi2 += (count - expected) * (count - expected) / expected;
    EXPECT_LT(chi2, 25.74);
}

// Class counts equal a map's; finish(k) keeps exactly the classes with at
// least k rows, in an order that is not the order of first appearance.
TEST(SampleClasses, CountsAndSuppressionMatchAReference) {
    std::mt19937 gen(11);
    for (int trial = 0; trial < 50; ++trial) {
        const std::size_t width = 1 + gen() % 3;
        SampleClasses classes(width);
        std::map<std::vector<uint32_t>, int64_t> reference;
        const int rows = gen() % 2000;
        for (int i = 0; i < rows; ++i) {
            std::vector<uint32_t> ids(width);
            for (auto& v : ids) v = gen() % (1 + trial % 7);
            classes.add(ids.data());
            ++reference[ids];
        }
        EXPECT_EQ(classes.sampled(), rows);
        ASSERT_EQ(classes.classes(), reference.size());
        const int64_t k = 1 + gen() % 40;
        auto released = classes.finish(k, DpRandom::from_seed(trial));
        std::map<std::vector<uint32_t>, int64_t> kept;
        int64_t kept_rows = 0;
        for (uint32_t c : released.classes) {
            kept[std::vector<uint32_t>(classes.ids(c), classes.ids(c) + width)] = classes.rows(c);
            EXPECT_GE(classes.rows(c), k);
        }
        for (auto& [key, count] : reference)
            if (count >= k) {
                EXPECT_EQ(kept[key], count);
                kept_rows += count;
            }
        EXPECT_EQ(kept.size(), released.classes.size());
        EXPECT_EQ(released.rows, kept_rows);
        if (released.classes.size() >= 20) {
            EXPECT_FALSE(std::is_sorted(released.classes.begin(), released.classes.end())) << trial;
        }
    }
}
