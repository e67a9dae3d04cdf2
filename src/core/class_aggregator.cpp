#include "class_aggregator.hpp"

#include <algorithm>

#include "error.hpp"
#include "no_postgres.hpp"

namespace privrisk {

ClassAggregator::ClassAggregator(std::pmr::memory_resource* mr, std::size_t quasi_identifiers)
    : qi_count_(quasi_identifiers), classes_(mr), heads_(mr), pairs_(mr), large_(mr) {}

void ClassAggregator::add(const Value* qi, Value sensitive) {
    // Key: per quasi-identifier a tag byte (0 = ⊥) and, for a value, its length and bytes.
    key_.clear();
    for (std::size_t i = 0; i < qi_count_; ++i) {
        if (!qi[i]) {
            key_ += '\0';
            continue;
        }
        uint32_t len = static_cast<uint32_t>(qi[i]->size());
        key_ += '\1';
        key_.append(reinterpret_cast<const char*>(&len), sizeof len);
        key_.append(*qi[i]);
    }
    bool added;
    uint32_t id = classes_.find_or_add(key_, &added);
    if (added) {
        if (pairs_.size() > UINT32_MAX - kFirstChunk) fail(ErrorKind::ProgramLimit, "too many classes for audit()");
        heads_.push_back(ClassHead{static_cast<uint32_t>(pairs_.size()), 0, kFirstChunk});
        pairs_.resize(pairs_.size() + kFirstChunk);
    }
    uint32_t value = table_.intern(sensitive);
    ClassHead& head = heads_[id];
    if (head.size == kLarge) {
        ++large_[(uint64_t(id) << 32) | value];
        return;
    }
    Pair* chunk = pairs_.data() + head.offset;
    for (uint16_t k = 0; k < head.size; ++k)
        if (chunk[k].value == value) {
            if (++chunk[k].count == UINT32_MAX) {  // rare: keep exact counts in the 64-bit map
                large_[(uint64_t(id) << 32) | value] += chunk[k].count;
                chunk[k] = chunk[--head.size];
            }
            return;
        }
    if (head.size == kLinearLimit) {
        for (uint16_t k = 0; k < head.size; ++k) large_[(uint64_t(id) << 32) | chunk[k].value] += chunk[k].count;
        ++large_[(uint64_t(id) << 32) | value];
        head.size = kLarge;
        return;
    }
    if (head.size == head.capacity) {  // move the class to a chunk twice as large at the end of the pool
        if (pairs_.size() > UINT32_MAX - 2u * head.capacity) fail(ErrorKind::ProgramLimit, "too many classes for audit()");
        uint32_t offset = static_cast<uint32_t>(pairs_.size());
        pairs_.resize(pairs_.size() + 2u * head.capacity);
        std::copy(pairs_.begin() + head.offset, pairs_.begin() + head.offset + head.size, pairs_.begin() + offset);
        head.offset = offset;
        head.capacity = static_cast<uint16_t>(2 * head.capacity);
        chunk = pairs_.data() + offset;
    }
    chunk[head.size++] = Pair{value, 1};
}

ContingencyTable ClassAggregator::finish() {
    std::vector<std::vector<ContingencyTable::Pair>> spilled(large_.empty() ? 0 : heads_.size());
    for (auto& [key, n] : large_) spilled[key >> 32].emplace_back(static_cast<uint32_t>(key & 0xffffffffu), n);
    std::vector<ContingencyTable::Pair> counts;
    for (uint32_t id = 0; id < heads_.size(); ++id) {
        const ClassHead& head = heads_[id];
        counts.clear();
        if (head.size != kLarge)
            for (uint16_t k = 0; k < head.size; ++k)
                counts.emplace_back(pairs_[head.offset + k].value, pairs_[head.offset + k].count);
        if (!spilled.empty())  // a class moved to large_, or single counts that outgrew 32 bits
            for (auto& [v, n] : spilled[id]) {
                bool merged = false;
                for (auto& [cv, cn] : counts)
                    if (cv == v) cn += n, merged = true;
                if (!merged) counts.emplace_back(v, n);
            }
        table_.add_class(counts);
    }
    table_.canonicalize();
    return std::move(table_);
}

}  // namespace privrisk
