// One pass over (quasi-identifier values, sensitive value) rows building the
// classes of a release and their sensitive counts: the specialized hash
// aggregation behind audit(). All of its memory comes from one resource, so
// the caller can bound it (and fall back to a spilling GROUP BY).
#pragma once

#include <memory_resource>
#include <string>
#include <string_view>

#include "flat_index.hpp"
#include "measures.hpp"

namespace privrisk {

class ClassAggregator {
public:
    ClassAggregator(std::pmr::memory_resource* mr, std::size_t quasi_identifiers);

    // qi[i] is the released value of quasi-identifier i (nullopt: ⊥).
    void add(const Value* qi, Value sensitive);
    std::size_t classes() const { return classes_.size(); }
    // The release's contingency table, in canonical order; the aggregator is spent afterwards.
    ContingencyTable finish();

private:
    // A class's counts: its (value id, count) pairs lie contiguously in one pool
    // chunk (one or two cache lines per lookup), doubled and moved when full;
    // past kLinearLimit values the class moves to `large_`.
    struct Pair {
        uint32_t value;
        uint32_t count;  // moved to `large_` before it could overflow
    };
    struct ClassHead {
        uint32_t offset;    // of the chunk in pairs_
        uint16_t size;      // pairs in use; kLarge once moved to large_
        uint16_t capacity;  // pairs in the chunk
    };
    static constexpr uint16_t kLarge = UINT16_MAX;
    static constexpr uint16_t kLinearLimit = 16;
    static constexpr uint16_t kFirstChunk = 2;

    std::size_t qi_count_;
    FlatIndex classes_;                  // class key -> class id
    std::pmr::vector<ClassHead> heads_;  // by class id
    std::pmr::vector<Pair> pairs_;
    std::pmr::unordered_map<uint64_t, int64_t> large_;  // (class id << 32 | value id) -> count
    std::string key_;                                   // scratch for the current row's key
    ContingencyTable table_;
};

}  // namespace privrisk
