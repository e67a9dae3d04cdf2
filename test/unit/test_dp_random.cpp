// The release randomness: per-class sample counts that depend only on the
// class, its size and the secret, rates that match the probability, and
// uniform shuffles.
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

// A class's sampled rows, over 1,000,000 rows in classes of 1 to 199 rows, are
// within 4 standard deviations of p·n for several p and seeds; one row more in
// a class adds 0 or 1 sampled row and leaves the others' draws alone.
TEST(DpRandom, SampledRowsMatchTheRateAndGrowOneRowAtATime) {
    for (double p : {0.05, 0.3934693402873666, 0.6321205588285577, 0.95})
        for (int64_t seed : {1, 2, 3}) {
            DpRandom r = DpRandom::from_seed(seed);
            uint64_t t = DpRandom::inclusion_threshold(p);
            int64_t n = 0, count = 0;
            for (uint32_t c = 0; n < 1'000'000; ++c) {
                auto id = id_bytes(c);
                const int64_t rows = std::min<int64_t>(1 + c % 199, 1'000'000 - n);
                count += r.sampled_rows(id.data(), id.size(), rows, t);
                n += rows;
            }
            double sd = std::sqrt(n * p * (1 - p));
            EXPECT_LE(std::fabs(count - n * p), 4 * sd) << p << " seed " << seed;
        }
    DpRandom r = DpRandom::from_seed(7);
    uint64_t t = DpRandom::inclusion_threshold(0.5);
    for (uint32_t c = 0; c < 50; ++c) {
        auto id = id_bytes(c);
        int64_t before = 0;
        for (int64_t rows = 1; rows <= 300; ++rows) {
            int64_t now = r.sampled_rows(id.data(), id.size(), rows, t);
            EXPECT_TRUE(now == before || now == before + 1) << c << " " << rows;
            before = now;
        }
        EXPECT_EQ(r.sampled_rows(id.data(), id.size(), 0, t), 0);
    }
    EXPECT_EQ(r.sampled_rows("x", 1, 1000, 0), 0);  // p = 0
    int calls = 0;
    EXPECT_LE(r.sampled_rows("x", 1, 200'000, t, [&] { ++calls; }), 200'000);
    EXPECT_EQ(calls, 3);  // after 65,536, 131,072 and 196,608 rows
}

// Each class's count is Binomial(10, 0.3): chi-square over 20,000 classes,
// counts 7–10 in one bin (7 degrees of freedom), below the 0.9999 quantile
// (29.88); two seeds give two different sets of counts.
TEST(DpRandom, SampledRowsOfAClassAreBinomial) {
    const int classes = 20000, n = 10;
    const double p = 0.3;
    std::vector<double> pmf(n + 1);
    for (int k = 0; k <= n; ++k) pmf[k] = std::exp(std::lgamma(n + 1) - std::lgamma(k + 1) - std::lgamma(n - k + 1) +
                                                 k * std::log(p) + (n - k) * std::log(1 - p));
    std::vector<int> seen(8), a, b;
    DpRandom r = DpRandom::from_seed(11), other = DpRandom::from_seed(12);
    uint64_t t = DpRandom::inclusion_threshold(p);
    for (uint32_t c = 0; c < uint32_t(classes); ++c) {
        std::string id = sample_identity({std::string_view("class"), std::to_string(c)});
        int64_t k = r.sampled_rows(id.data(), id.size(), n, t);
        ++seen[std::min<int64_t>(k, 7)];
        a.push_back(int(k));
        b.push_back(int(other.sampled_rows(id.data(), id.size(), n, t)));
    }
    double chi2 = 0;
    for (int bin = 0; bin < 8; ++bin) {
        double expected = 0;
        for (int k = bin; k <= (bin == 7 ? n : bin); ++k) expected += pmf[k] * classes;
        chi2 += (seen[bin] - expected) * (seen[bin] - expected) / expected;
    }
    EXPECT_LT(chi2, 29.88);
    EXPECT_NE(a, b);
}

// No two lists of values share an identity: a NULL is not an empty text, the
// boundary between values counts, and so does the number of values.
TEST(DpRandom, SampleIdentitiesAreDistinct) {
    using V = std::vector<std::optional<std::string_view>>;
    std::vector<V> lists = {{}, {std::nullopt}, {std::string_view("")}, {std::string_view("a"), std::string_view("bc")},
                            {std::string_view("ab"), std::string_view("c")}, {std::string_view("abc")},
                            {std::nullopt, std::nullopt}, {std::string_view(""), std::nullopt},
                            {std::string_view("\0\1", 2)}, {std::nullopt, std::string_view("\1")}};
    std::map<std::string, std::size_t> ids;
    for (std::size_t i = 0; i < lists.size(); ++i) EXPECT_TRUE(ids.emplace(sample_identity(lists[i]), i).second) << i;
    EXPECT_EQ(sample_identity({std::string_view("ab")}), std::string("\1\2\0\0\0ab", 7));
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
        EXPECT_EQ(classes.total(), rows);
        ASSERT_EQ(classes.classes(), reference.size());
        const int64_t k = 1 + gen() % 40;
        auto by_ids = [&](uint32_t a, uint32_t b) {
            return std::lexicographical_compare(classes.ids(a), classes.ids(a) + width, classes.ids(b), classes.ids(b) + width);
        };
        auto released = classes.finish(k, DpRandom::from_seed(trial), by_ids);
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
        // The same classes met in another order come out in the same order.
        SampleClasses reversed(width);
        for (auto it = reference.rbegin(); it != reference.rend(); ++it) reversed.add(it->first.data(), it->second);
        auto by_ids_reversed = [&](uint32_t a, uint32_t b) {
            return std::lexicographical_compare(reversed.ids(a), reversed.ids(a) + width, reversed.ids(b),
                                                reversed.ids(b) + width);
        };
        auto again = reversed.finish(k, DpRandom::from_seed(trial), by_ids_reversed);
        ASSERT_EQ(again.classes.size(), released.classes.size());
        for (std::size_t i = 0; i < again.classes.size(); ++i)
            EXPECT_TRUE(std::equal(classes.ids(released.classes[i]), classes.ids(released.classes[i]) + width,
                                   reversed.ids(again.classes[i])));
    }
}
