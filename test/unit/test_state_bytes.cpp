// The byte forms of aggregate states can reach the deserializers from outside
// (a hand-made bytea). For each: the valid form reads back; every truncation,
// random garbage and random corruption of a valid form either reads as a valid
// object or throws privrisk::Error, never crashes or reads past the end (run
// under ASan to see the latter).
#include <gtest/gtest.h>

#include <memory_resource>
#include <random>
#include <string>
#include <vector>

#include "classes/class_histogram.hpp"
#include "classes/class_set.hpp"
#include "common/error.hpp"
#include "classes/tuple_tally.hpp"
#include "information/value_counts.hpp"

using namespace privrisk;

namespace {

// Runs f; true if it returned, false if it threw privrisk::Error (anything else fails the test).
template <typename F>
bool accepts(F&& f) {
    try {
        f();
        return true;
    } catch (const Error&) {
        return false;
    }
}

// Every prefix shorter than the whole, random garbage, and random corruptions of `valid`,
// each given to `read` in a fresh copy (so a read past the end is past an allocation).
template <typename Read>
void hammer(const std::string& valid, Read&& read, bool every_prefix_fails = true) {
    ASSERT_TRUE(accepts([&] { read(valid); }));
    for (std::size_t n = 0; n < valid.size(); ++n) {
        std::string prefix = valid.substr(0, n);
        bool ok = accepts([&] { read(prefix); });
        if (every_prefix_fails) {
            EXPECT_FALSE(ok) << "prefix of " << n << " bytes accepted";
        }
    }
    std::mt19937_64 rng(42);
    for (int trial = 0; trial < 3000; ++trial) {
        std::string garbage(rng() % 96, '\0');
        for (char& c : garbage) c = static_cast<char>(rng() % 4 == 0 ? rng() % 3 : rng());
        accepts([&] { read(garbage); });
        std::string corrupt = valid;
        for (int flips = 1 + static_cast<int>(rng() % 4); flips > 0 && !corrupt.empty(); --flips)
            corrupt[rng() % corrupt.size()] = static_cast<char>(rng() % 2 ? rng() : rng() % 4);
        accepts([&] { read(corrupt); });
    }
}

std::string sample_hist(int seed) {
    std::vector<std::pair<std::string, int64_t>> values;
    for (int i = 0; i <= seed % 3; ++i) values.emplace_back("v" + std::to_string(seed + i), 1 + i);
    return encode_histogram(values, seed % 2);
}

}  // namespace

TEST(StateBytes, HistogramValidationNeverReadsPastTheEnd) {
    hammer(sample_hist(4), [](const std::string& b) { validate_histogram(b, true); });
}

TEST(StateBytes, ClassSetReadsOnlyValidClasses) {
    ClassSet set(std::pmr::new_delete_resource());
    for (int i = 0; i < 4; ++i) set.add(sample_hist(i), 1 + i);
    const std::string valid = set.serialize();
    hammer(valid, [](const std::string& b) {
        ClassSet s(std::pmr::new_delete_resource());
        s.add_serialized(b);
        s.table();  // what the final functions read: only validated hists reach it
    });
    ClassSet back(std::pmr::new_delete_resource());
    back.add_serialized(valid);
    EXPECT_EQ(back.serialize().size(), valid.size());
    EXPECT_EQ(back.distinct_classes(), 4u);
}

TEST(StateBytes, ClassSetRefusesZeroOrNegativeMultiplicity) {
    ClassSet set(std::pmr::new_delete_resource());
    set.add(sample_hist(1), 1);
    std::string bytes = set.serialize();
    std::string zero = bytes, negative = bytes;
    for (int i = 0; i < 8; ++i) zero[4 + i] = 0, negative[4 + i] = static_cast<char>(0xff);
    ClassSet s(std::pmr::new_delete_resource());
    EXPECT_FALSE(accepts([&] { s.add_serialized(zero); }));
    EXPECT_FALSE(accepts([&] { s.add_serialized(negative); }));
    EXPECT_FALSE(accepts([&] { s.add_serialized(bytes + "x"); }));
}

TEST(StateBytes, ValueCountsNeverReadPastTheEnd) {
    for (bool pairs : {false, true}) {
        ValueCounts c(std::pmr::new_delete_resource(), pairs);
        for (int i = 0; i < 20; ++i) {
            if (pairs) c.add(fingerprint("x" + std::to_string(i % 5)), fingerprint("y" + std::to_string(i % 3)));
            else c.add(fingerprint("x" + std::to_string(i % 7)));
        }
        const std::string valid = c.serialize();
        hammer(valid, [&](const std::string& b) {
            ValueCounts back(std::pmr::new_delete_resource(), pairs);
            back.add_serialized(b);
            back.entropy();
            if (pairs) back.entropy_x(), back.entropy_y();
        });
        ValueCounts back(std::pmr::new_delete_resource(), pairs);
        back.add_serialized(valid);
        EXPECT_EQ(back.rows(), 20);
        EXPECT_EQ(back.entropy(), c.entropy());
    }
}

TEST(StateBytes, ValueCountsRefuseHugeCountsAndBadRows) {
    ValueCounts c(std::pmr::new_delete_resource(), true);
    std::string huge(1, '\1');
    huge += std::string(8, '\xff');  // 2^64 - 1 x fingerprints, none present
    EXPECT_FALSE(accepts([&] { c.add_serialized(huge); }));
    ValueCounts single(std::pmr::new_delete_resource(), false);
    single.add(fingerprint("a"));
    std::string bytes = single.serialize();
    std::string zero = bytes;
    for (int i = 0; i < 8; ++i) zero[zero.size() - 8 + i] = 0;  // the slot's count
    ValueCounts back(std::pmr::new_delete_resource(), false);
    EXPECT_FALSE(accepts([&] { back.add_serialized(zero); }));
    EXPECT_FALSE(accepts([&] { back.add_serialized(bytes + "x"); }));
}

TEST(StateBytes, TupleTallyNeverReadsPastTheEnd) {
    TupleTally t(std::pmr::new_delete_resource(), 2);
    for (int i = 0; i < 30; ++i) {
        uint32_t codes[2];
        for (int j = 0; j < 2; ++j) {
            std::string key = "k" + std::to_string((i + j) % (3 + j));
            bool added;
            codes[j] = t.code(j, key, &added);
            if (added) t.set_text(j, "text " + key);
        }
        t.add(codes);
    }
    const std::string valid = t.serialize();
    hammer(valid, [](const std::string& b) {
        TupleTally back(std::pmr::new_delete_resource(), 2);
        back.merge_serialized(b);
        back.serialize();
    });
    TupleTally back(std::pmr::new_delete_resource(), 2);
    back.merge_serialized(valid);
    EXPECT_EQ(back.serialize().size(), valid.size());
    // A width the bytes cannot hold is refused before anything is sized by it.
    std::string wide = valid;
    wide[0] = wide[1] = wide[2] = wide[3] = static_cast<char>(0xff);
    EXPECT_FALSE(accepts([&] { TupleTally::read(wide, [](std::size_t, uint32_t, std::string_view, std::string_view) {},
                                                [](const uint32_t*, int64_t) {}, nullptr); }));
}
