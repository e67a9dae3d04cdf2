// One pass over (quasi-identifier values, sensitive value) rows building the
// classes of a release and their sensitive counts: the specialized hash
// aggregation behind audit(). All of its memory comes from one resource, so
// the caller can bound it (and fall back to a spilling GROUP BY).
#pragma once

#include <memory_resource>
#include <string>
#include <string_view>

#include "measures.hpp"

namespace privrisk {

class ClassAggregator {
public:
    ClassAggregator(std::pmr::memory_resource* mr, std::size_t quasi_identifiers);

    // qi[i] is the released value of quasi-identifier i (nullopt: ⊥).
    void add(const Value* qi, Value sensitive);
    std::size_t classes() const { return counts_.size(); }
    // The release's contingency table; the aggregator is spent afterwards.
    ContingencyTable finish();

private:
    using Counts = std::pmr::vector<std::pair<uint32_t, int64_t>>;
    std::size_t qi_count_;
    std::pmr::memory_resource* mr_;
    std::pmr::monotonic_buffer_resource keys_;
    std::pmr::unordered_map<std::string_view, uint32_t> index_;  // class key -> position
    std::pmr::vector<Counts> counts_;  // small classes: (value id, count) pairs, scanned linearly
    // Classes with many values move here, keyed by (position << 32 | value id);
    // their Counts then hold the single marker pair (kSpilled, 0).
    std::pmr::unordered_map<uint64_t, int64_t> large_;
    static constexpr uint32_t kSpilled = UINT32_MAX;
    static constexpr std::size_t kLinearLimit = 16;
    std::string key_;  // scratch for the current row's key
    ContingencyTable table_;
};

}  // namespace privrisk
