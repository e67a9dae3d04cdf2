// One pass over (quasi-identifier values, sensitive value) rows building the
// classes of a release and their sensitive counts: the specialized hash
// aggregation behind audit().
//
// A row is dictionary-encoded (one small table per quasi-identifier column,
// which stays in cache) and appended, as fixed-width codes, to one of 256
// partitions chosen by the hash of its class. finish() then aggregates one
// partition at a time: its class table is small enough to stay in cache, so
// a class costs a few cache misses in all instead of two per row (classes of
// a release often have a dozen rows or fewer, too few for a single big table
// to be reused). All memory comes from one resource, so the caller can bound
// it and fall back to a spilling GROUP BY.
#pragma once

#include <memory_resource>
#include <string_view>
#include <vector>

#include "flat_index.hpp"
#include "measures.hpp"

namespace privrisk {

class ClassAggregator {
public:
    ClassAggregator(std::pmr::memory_resource* mr, std::size_t quasi_identifiers);

    // qi[i] is the released value of quasi-identifier i (nullopt: ⊥).
    void add(const Value* qi, Value sensitive);
    uint64_t rows() const { return rows_; }
    // The release's contingency table, in canonical order; the aggregator is spent afterwards.
    ContingencyTable finish();

private:
    static constexpr std::size_t kPartitionBits = 8;
    static constexpr std::size_t kPartitions = std::size_t(1) << kPartitionBits;
    static constexpr std::size_t kBlockWords = 16 * 1024;  // partitions grow by 64 kB blocks: no copying

    // A partition's encoded rows: (k codes, value id) per row, in blocks.
    struct Partition {
        std::pmr::vector<uint32_t*> blocks;
        std::size_t used = 0;  // words used in the last block
        explicit Partition(std::pmr::memory_resource* mr) : blocks(mr) {}
    };

    void aggregate(Partition& p, ContingencyTable& table);
    static uint64_t hash_codes(const uint32_t* codes, std::size_t k);

    std::pmr::memory_resource* mr_;
    std::size_t qi_count_;
    std::size_t record_words_;  // k codes + the value id
    std::pmr::vector<FlatIndex> dictionaries_;  // one per quasi-identifier
    std::pmr::vector<Partition> partitions_;
    std::vector<uint32_t> record_;  // scratch: the current row
    uint64_t rows_ = 0;
    ContingencyTable table_;  // interns the sensitive values
};

}  // namespace privrisk
