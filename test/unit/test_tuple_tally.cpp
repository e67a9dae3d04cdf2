// CodeTuples and TupleTally: counts equal a std::map's on random rows, whatever
// way the rows are split between tallies and merged through the byte form.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/error.hpp"
#include "classes/tuple_tally.hpp"

using privrisk::CodeTuples;
using privrisk::TupleTally;

namespace {

using Row = std::vector<std::string>;  // "" is NULL

// Adds a row the way the aggregate does: key bytes = "k" + value, text = value.
void add_row(TupleTally& t, const Row& row) {
    std::vector<uint32_t> codes(row.size());
    for (std::size_t j = 0; j < row.size(); ++j) {
        if (row[j].empty()) continue;
        bool added;
        codes[j] = t.code(j, "k" + row[j], &added);
        if (added) t.set_text(j, row[j]);
    }
    t.add(codes.data());
}

// The tally's tuples as values, read back through its byte form.
std::map<Row, int64_t> contents(const TupleTally& t) {
    std::vector<std::vector<std::string>> text(t.width(), std::vector<std::string>{""});
    std::map<Row, int64_t> out;
    TupleTally::read(
        t.serialize(),
        [&](std::size_t j, uint32_t code, std::string_view key, std::string_view value) {
            EXPECT_EQ(code, text[j].size());
            EXPECT_EQ(std::string(key), "k" + std::string(value));
            text[j].emplace_back(value);
        },
        [&](const uint32_t* codes, int64_t times) {
            Row r;
            for (std::size_t j = 0; j < t.width(); ++j) r.push_back(text[j][codes[j]]);
            EXPECT_TRUE(out.emplace(r, times).second) << "a tuple listed twice";
        });
    return out;
}

}  // namespace

TEST(CodeTuples, CountsBeyondThe32BitSlotCounter) {
    for (std::size_t width : {2u, 4u, 5u}) {  // the byte key and the packed key
        CodeTuples t(std::pmr::new_delete_resource(), width);
        std::vector<uint32_t> a(width, 1), b(width, 70000);  // b does not pack
        const int64_t big = int64_t(UINT32_MAX) - 5;
        EXPECT_EQ(t.add(a.data(), big), 0u);
        EXPECT_EQ(t.add(b.data(), 1), 1u);
        for (int i = 0; i < 10; ++i) EXPECT_EQ(t.add(a.data(), 1), 0u);  // passes 2^32 − 1 in the slot
        EXPECT_EQ(t.add(a.data(), int64_t(1) << 40), 0u);                // too large for a slot at all
        EXPECT_EQ(t.times(0), big + 10 + (int64_t(1) << 40));
        EXPECT_EQ(t.add(b.data(), 2), 1u);  // counting goes on after a read
        EXPECT_EQ(t.times(1), 3);
        EXPECT_EQ(t.size(), 2u);
    }
}

TEST(TupleTally, MergedPartsEqualOneTallyAndAMap) {
    std::mt19937 rng(11);
    for (int round = 0; round < 30; ++round) {
        const std::size_t width = 1 + rng() % 5;
        const int values = 1 + static_cast<int>(rng() % (round % 3 ? 6 : 300));  // small and large domains
        const int rows = static_cast<int>(rng() % 3000);
        std::vector<Row> data;
        std::map<Row, int64_t> expected;
        for (int r = 0; r < rows; ++r) {
            Row row;
            for (std::size_t j = 0; j < width; ++j)
                row.push_back(rng() % 7 == 0 ? "" : "v" + std::to_string(rng() % values));
            data.push_back(row);
            ++expected[row];
        }
        TupleTally whole(std::pmr::new_delete_resource(), width);
        for (const Row& r : data) add_row(whole, r);
        EXPECT_EQ(whole.rows(), rows);
        EXPECT_EQ(whole.tuples(), expected.size());
        EXPECT_EQ(contents(whole), expected);

        // Split at random into up to four "workers", merged through the byte form in another order.
        const int parts = 1 + static_cast<int>(rng() % 4);
        std::vector<TupleTally> workers;
        for (int p = 0; p < parts; ++p) workers.emplace_back(std::pmr::new_delete_resource(), width);
        for (const Row& r : data) add_row(workers[rng() % parts], r);
        TupleTally leader(std::pmr::new_delete_resource(), width);
        for (int p = parts - 1; p >= 0; --p) leader.merge_serialized(workers[p].serialize());
        EXPECT_EQ(leader.rows(), rows);
        EXPECT_EQ(contents(leader), expected) << "round " << round;
    }
}

TEST(TupleTally, RefusesABrokenByteForm) {
    TupleTally t(std::pmr::new_delete_resource(), 2);
    add_row(t, {"a", "b"});
    add_row(t, {"a", ""});
    const std::string bytes = t.serialize();
    TupleTally other(std::pmr::new_delete_resource(), 2);
    EXPECT_THROW(other.merge_serialized(bytes.substr(0, bytes.size() - 1)), privrisk::Error);
    EXPECT_THROW(other.merge_serialized(bytes + "x"), privrisk::Error);
    TupleTally wider(std::pmr::new_delete_resource(), 3);
    EXPECT_THROW(wider.merge_serialized(bytes), privrisk::Error);
    std::string unknown = bytes;  // the last tuple's second code → 9: no such value
    unknown[unknown.size() - 8 - 4] = 9;
    EXPECT_THROW(other.merge_serialized(unknown), privrisk::Error);
}

TEST(TupleTally, CompactsMidStreamAndSwitchesToTheHashTableWhenCodesOutgrowTheirBits) {
    // Width 4 packs 16 bits per code. 2.5M rows pass two compactions of 2^20
    // buffered rows; the last column's codes pass 2^16 half way, so its later
    // tuples take the hash table while the earlier ones stay packed.
    std::mt19937 rng(5);
    const std::size_t width = 4;
    TupleTally t(std::pmr::new_delete_resource(), width);
    std::unordered_map<uint64_t, int64_t> expected;  // by the values' numbers, as one key
    auto key = [](const std::vector<uint32_t>& x) { return ((uint64_t(x[0]) * 4 + x[1]) * 32 + x[2]) * 131072 + x[3]; };
    std::vector<uint32_t> codes(width), v(width);
    for (int r = 0; r < 2500000; ++r) {
        v = {uint32_t(rng() % 50), uint32_t(rng() % 3), rng() % 9 ? uint32_t(1 + rng() % 30) : 0u,
             r < 1250000 ? uint32_t(rng() % 20) : uint32_t(rng() % 90000)};
        for (std::size_t j = 0; j < width; ++j) {
            codes[j] = 0;
            if (v[j] == 0 && j == 2) continue;  // NULL
            std::string value = std::to_string(j) + ":" + std::to_string(v[j]);
            bool added;
            codes[j] = t.code(j, value, &added);
            if (added) t.set_text(j, value);
        }
        t.add(codes.data());
        ++expected[key(v)];
    }
    EXPECT_EQ(t.rows(), 2500000);
    EXPECT_EQ(t.tuples(), expected.size());
    // Every distinct tuple listed once with its exact count.
    std::size_t listed = 0;
    std::vector<std::vector<std::string>> text(width, std::vector<std::string>{""});
    TupleTally::read(
        t.serialize(), [&](std::size_t j, uint32_t, std::string_view, std::string_view value) { text[j].emplace_back(value); },
        [&](const uint32_t* c, int64_t times) {
            std::vector<uint32_t> back(width);
            for (std::size_t j = 0; j < width; ++j)
                back[j] = c[j] == 0 ? 0 : uint32_t(std::stoul(text[j][c[j]].substr(text[j][c[j]].find(':') + 1)));
            auto it = expected.find(key(back));
            ASSERT_TRUE(it != expected.end());
            ASSERT_EQ(times, it->second);
            it->second = -1;  // a second listing would fail above
            ++listed;
        });
    EXPECT_EQ(listed, expected.size());
}

TEST(TupleTally, CountsEveryRowOfALargeSmallDomainTable) {
    std::mt19937 rng(9);
    TupleTally t(std::pmr::new_delete_resource(), 2);
    std::vector<int64_t> expected(40 * 40, 0);
    std::vector<uint32_t> codes(2);
    for (int r = 0; r < 2200000; ++r) {
        uint32_t a = rng() % 40, b = rng() % 40;
        ++expected[a * 40 + b];
        std::string ka = "a" + std::to_string(a), kb = "b" + std::to_string(b);
        bool added;
        codes[0] = t.code(0, ka, &added);
        if (added) t.set_text(0, ka);
        codes[1] = t.code(1, kb, &added);
        if (added) t.set_text(1, kb);
        t.add(codes.data());
    }
    std::vector<std::vector<std::string>> text(2, std::vector<std::string>{""});
    std::vector<int64_t> got(40 * 40, 0);
    TupleTally::read(
        t.serialize(), [&](std::size_t j, uint32_t, std::string_view, std::string_view value) { text[j].emplace_back(value); },
        [&](const uint32_t* c, int64_t times) {
            got[std::stoul(text[0][c[0]].substr(1)) * 40 + std::stoul(text[1][c[1]].substr(1))] += times;
        });
    EXPECT_EQ(got, expected);
}

// Found by scripts/fuzz (fuzz_states): counts whose sum passes a bigint made the
// merge overflow (undefined behaviour); a hostile shard could send them.
TEST(TupleTally, RefusesCountsPastABigintInsteadOfOverflowing) {
    TupleTally huge(std::pmr::new_delete_resource(), 1);
    bool added;
    uint32_t code = huge.code(0, "a", &added);
    huge.set_text(0, "a");
    huge.add(&code, INT64_MAX - 1);
    const std::string bytes = huge.serialize();
    TupleTally merged(std::pmr::new_delete_resource(), 1);
    merged.merge_serialized(bytes);
    EXPECT_EQ(merged.rows(), INT64_MAX - 1);
    try {
        merged.merge_serialized(bytes);
        ADD_FAILURE() << "merged past a bigint";
    } catch (const privrisk::Error& e) {
        EXPECT_EQ(e.kind(), privrisk::ErrorKind::ProgramLimit);
    }
    EXPECT_EQ(merged.rows(), INT64_MAX - 1);
}

namespace {

// Counts what a memory resource holds at its peak.
class PeakResource : public std::pmr::memory_resource {
public:
    std::size_t held = 0, peak = 0;

private:
    void* do_allocate(std::size_t bytes, std::size_t alignment) override {
        held += bytes;
        peak = std::max(peak, held);
        return std::pmr::new_delete_resource()->allocate(bytes, alignment);
    }
    void do_deallocate(void* p, std::size_t bytes, std::size_t alignment) override {
        held -= bytes;
        std::pmr::new_delete_resource()->deallocate(p, bytes, alignment);
    }
    bool do_is_equal(const std::pmr::memory_resource& other) const noexcept override { return this == &other; }
};

}  // namespace

// Under a memory bound the aggregate waits for fewer rows before counting them: the same
// counts, and the buffer (with its sort's other half) no longer dominates a tally of few tuples.
TEST(TupleTally, AFewerRowsBufferCountsTheSameInLessMemory) {
    PeakResource small_memory, default_memory;
    TupleTally small(&small_memory, 2), large(&default_memory, 2);
    small.set_buffered_rows(4096);
    std::mt19937_64 rng(11);
    std::map<Row, int64_t> expected;
    for (int i = 0; i < 1'100'000; ++i) {
        Row r{std::to_string(rng() % 3), std::to_string(rng() % 2)};
        add_row(small, r);
        add_row(large, r);
        if (i < 200'000) ++expected[r];
        if (i == 199'999) {
            EXPECT_EQ(contents(small), expected);
        }
    }
    EXPECT_EQ(contents(small), contents(large));
    EXPECT_EQ(small.rows(), 1'100'000);
    EXPECT_LT(small_memory.peak, std::size_t(256) << 10);   // 4,096 rows of 8 bytes, twice, and the columns
    EXPECT_GT(default_memory.peak, std::size_t(8) << 20);   // 2^20 rows of 8 bytes, and as much to sort them
}
