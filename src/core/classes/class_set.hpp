// The classes of a release as a multiset of histograms, identical classes
// stored once: the state of the level-2 aggregates whose measures need the
// whole table's distribution (t-closeness, δ-disclosure, A_know, A_acc, gain).
#pragma once

#include <cstdint>
#include <memory_resource>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "classes/contingency_table.hpp"

namespace privrisk {

class ClassSet {
public:
    // `mr` provides all memory (an aggregate's context in PostgreSQL); the
    // histograms' bytes go to a monotonic arena on top of it.
    explicit ClassSet(std::pmr::memory_resource* mr);

    void add(std::string_view encoded, int64_t times = 1);
    void merge(const ClassSet& other);
    // Transfer form for parallel workers: u32 count, then (i64 times, u32 length, bytes).
    std::string serialize() const;
    void add_serialized(std::string_view bytes);  // any bytes: each class is validated as a hist
    ContingencyTable table() const;
    std::size_t distinct_classes() const { return classes_.size(); }
    // The distinct histograms (encoded) with how many classes have each.
    std::vector<std::pair<std::string, int64_t>> entries() const {
        return std::vector<std::pair<std::string, int64_t>>(classes_.begin(), classes_.end());
    }

private:
    std::pmr::monotonic_buffer_resource arena_;
    std::pmr::unordered_map<std::string_view, int64_t> classes_;
};

}  // namespace privrisk
