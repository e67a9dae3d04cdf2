// merge_record_shares: the records of a count in parallel put together. A serial
// read that goes through the blocks in order and takes each block's rows from
// where its entry says meets, row by row, the class each process recorded for it
// (in the leader's ids); random interleavings of blocks among processes.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "common/error.hpp"
#include "release/suppression_record.hpp"

using privrisk::Error;
using privrisk::RecordShare;
using privrisk::merge_record_shares;

namespace {

struct Process {
    std::vector<uint64_t> blocks;
    std::vector<uint32_t> sequence;
    std::vector<uint32_t> map;
};

std::string_view bytes_of(const std::vector<uint64_t>& v) { return {reinterpret_cast<const char*>(v.data()), v.size() * 8}; }
std::string_view bytes_of(const std::vector<uint32_t>& v) { return {reinterpret_cast<const char*>(v.data()), v.size() * 4}; }

}  // namespace

TEST(SuppressionRecord, ASerialReadMeetsEveryRowsRecordedClass) {
    std::mt19937 rng(37);
    for (int round = 0; round < 200; ++round) {
        const int processes = 1 + static_cast<int>(rng() % 4);
        const uint32_t nblocks = 1 + rng() % 300;
        std::vector<Process> p(processes);
        std::map<uint32_t, std::vector<uint32_t>> expected;  // block -> the leader's ids of its rows, in order
        // Blocks handed out in chunks, as a parallel heap scan does; some blocks have no row.
        for (uint32_t block = 0; block < nblocks;) {
            const int who = static_cast<int>(rng() % processes);
            const uint32_t chunk = 1 + rng() % 8;
            for (uint32_t b = block; b < std::min(nblocks, block + chunk); ++b) {
                const uint32_t rows = rng() % 5 == 0 ? 0 : 1 + rng() % 60;
                if (rows == 0) continue;
                p[who].blocks.push_back(uint64_t(b) << 32 | rows);
                for (uint32_t r = 0; r < rows; ++r) p[who].sequence.push_back(rng() % 50);
            }
            block += chunk;
        }
        for (int i = 1; i < processes; ++i)  // each worker's ids mean other leader ids
            for (uint32_t c = 0; c < 50; ++c) p[i].map.push_back(static_cast<uint32_t>(rng() % 1000));
        for (int i = 0; i < processes; ++i) {
            std::size_t row = 0;
            for (uint64_t br : p[i].blocks)
                for (uint32_t r = 0; r < static_cast<uint32_t>(br); ++r, ++row)
                    expected[static_cast<uint32_t>(br >> 32)].push_back(i == 0 ? p[i].sequence[row] : p[i].map[p[i].sequence[row]]);
        }
        std::pmr::vector<uint32_t> sequence(p[0].sequence.begin(), p[0].sequence.end());
        std::pmr::vector<uint64_t> blocks(p[0].blocks.begin(), p[0].blocks.end()), starts;
        // The leader's share is its record in place: its views are of the vectors merged into.
        std::vector<RecordShare> shares{{std::string_view(reinterpret_cast<const char*>(blocks.data()), blocks.size() * 8),
                                         std::string_view(reinterpret_cast<const char*>(sequence.data()), sequence.size() * 4),
                                         {}}};
        for (int i = 1; i < processes; ++i) shares.push_back({bytes_of(p[i].blocks), bytes_of(p[i].sequence), p[i].map});
        merge_record_shares(shares, &sequence, &blocks, &starts);

        ASSERT_EQ(blocks.size(), expected.size());
        ASSERT_EQ(starts.size(), blocks.size());
        std::size_t rows = 0;
        auto want = expected.begin();
        for (std::size_t e = 0; e < blocks.size(); ++e, ++want) {
            ASSERT_EQ(blocks[e] >> 32, want->first) << "round " << round;
            ASSERT_EQ(static_cast<uint32_t>(blocks[e]), want->second.size());
            for (std::size_t r = 0; r < want->second.size(); ++r)
                ASSERT_EQ(sequence[starts[e] + r], want->second[r]) << "round " << round << ", block " << want->first;
            rows += want->second.size();
        }
        ASSERT_EQ(sequence.size(), rows);
    }
}

TEST(SuppressionRecord, RefusesARecordThatDoesNotAddUp) {
    std::vector<uint64_t> leader_blocks{uint64_t(3) << 32 | 2};
    std::vector<uint32_t> leader_ids{0, 1};
    std::vector<uint64_t> twice{uint64_t(3) << 32 | 1};  // block 3 again
    std::vector<uint64_t> short_blocks{uint64_t(4) << 32 | 3};  // 3 rows, 1 id
    std::vector<uint32_t> one{0};
    std::vector<uint32_t> unknown{7};
    std::vector<uint64_t> other{uint64_t(5) << 32 | 1};
    auto merge = [&](const std::vector<uint64_t>& b, const std::vector<uint32_t>& ids) {
        std::pmr::vector<uint32_t> sequence(leader_ids.begin(), leader_ids.end());
        std::pmr::vector<uint64_t> blocks(leader_blocks.begin(), leader_blocks.end()), starts;
        std::vector<RecordShare> shares{{bytes_of(leader_blocks), bytes_of(leader_ids), {}}, {bytes_of(b), bytes_of(ids), {9}}};
        merge_record_shares(shares, &sequence, &blocks, &starts);
        return std::vector<uint32_t>(sequence.begin(), sequence.end());
    };
    EXPECT_THROW(merge(twice, one), Error);
    EXPECT_THROW(merge(short_blocks, one), Error);
    EXPECT_THROW(merge(other, unknown), Error);
    EXPECT_EQ(merge(other, one), (std::vector<uint32_t>{0, 1, 9}));
}
