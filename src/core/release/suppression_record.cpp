#include "release/suppression_record.hpp"

#include <algorithm>
#include <cstring>
#include <string>
#include <utility>

#include "common/error.hpp"

namespace privrisk {

namespace {

template <typename T>
T read_at(std::string_view bytes, std::size_t i) {
    T v;
    std::memcpy(&v, bytes.data() + i * sizeof(T), sizeof v);
    return v;
}

}  // namespace

void merge_record_shares(const std::vector<RecordShare>& shares, std::pmr::vector<uint32_t>* sequence,
                         std::pmr::vector<uint64_t>* blocks, std::pmr::vector<uint64_t>* starts) {
    std::vector<std::pair<uint64_t, uint64_t>> runs;  // (block << 32 | rows, first row in sequence)
    std::size_t total = 0;
    for (const RecordShare& share : shares) total += share.sequence.size() / sizeof(uint32_t);
    for (std::size_t i = 0; i < shares.size(); ++i) {
        const RecordShare& share = shares[i];
        const std::size_t rows = share.sequence.size() / sizeof(uint32_t);
        const std::size_t base = i == 0 ? 0 : sequence->size();
        if (i == 0 && sequence->size() != rows) fail(ErrorKind::Internal, "the leader's record is not in place");
        std::size_t row = 0;
        for (std::size_t b = 0; b < share.blocks.size() / sizeof(uint64_t); ++b) {
            const auto block_rows = read_at<uint64_t>(share.blocks, b);
            runs.emplace_back(block_rows, base + row);
            row += static_cast<uint32_t>(block_rows);
        }
        if (row != rows) fail(ErrorKind::Internal, "a parallel count's record does not match its blocks");
        if (i == 0) {
            sequence->reserve(total);  // the first share's view of it is not read again
            continue;
        }
        for (std::size_t r = 0; r < rows; ++r) {
            const auto id = read_at<uint32_t>(share.sequence, r);
            if (id >= share.map.size()) fail(ErrorKind::Internal, "a parallel count's record names an unknown class");
            sequence->push_back(share.map[id]);
        }
    }
    std::sort(runs.begin(), runs.end());
    for (std::size_t r = 1; r < runs.size(); ++r)
        if (runs[r].first >> 32 == runs[r - 1].first >> 32)
            fail(ErrorKind::Internal,
                 "a parallel count recorded block " + std::to_string(runs[r].first >> 32) + " twice");
    blocks->clear();
    starts->clear();
    blocks->reserve(runs.size());
    starts->reserve(runs.size());
    for (const auto& [block_rows, first] : runs) {
        blocks->push_back(block_rows);
        starts->push_back(first);
    }
}

}  // namespace privrisk
