#include "class_aggregator.hpp"

#include <cstring>

#include "error.hpp"
#include "no_postgres.hpp"

namespace privrisk {

ClassAggregator::ClassAggregator(std::pmr::memory_resource* mr, std::size_t quasi_identifiers)
    : qi_count_(quasi_identifiers), mr_(mr), keys_(mr), index_(mr), counts_(mr), large_(mr) {}

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
    uint32_t position;
    auto it = index_.find(key_);
    if (it != index_.end()) {
        position = it->second;
    } else {
        char* stored = static_cast<char*>(keys_.allocate(key_.size() ? key_.size() : 1, 1));
        std::memcpy(stored, key_.data(), key_.size());
        position = static_cast<uint32_t>(counts_.size());
        counts_.emplace_back();
        index_.emplace(std::string_view(stored, key_.size()), position);
    }
    uint32_t id = table_.intern(sensitive);
    Counts& c = counts_[position];
    if (!c.empty() && c.front().first == kSpilled) {
        ++large_[(uint64_t(position) << 32) | id];
        return;
    }
    for (auto& [value, n] : c)
        if (value == id) {
            ++n;
            return;
        }
    if (c.size() < kLinearLimit) {
        c.emplace_back(id, 1);
        return;
    }
    for (auto& [value, n] : c) large_[(uint64_t(position) << 32) | value] = n;
    large_[(uint64_t(position) << 32) | id] = 1;
    c.assign(1, {kSpilled, 0});
}

ContingencyTable ClassAggregator::finish() {
    for (auto& [key, n] : large_) {
        Counts& c = counts_[key >> 32];
        if (!c.empty() && c.front().first == kSpilled) c.clear();
        c.emplace_back(static_cast<uint32_t>(key & 0xffffffffu), n);
    }
    for (Counts& c : counts_) {
        table_.add_class(std::vector<std::pair<uint32_t, int64_t>>(c.begin(), c.end()));
        Counts(c.get_allocator()).swap(c);  // give the memory back as we go (same resource)
    }
    table_.canonicalize();
    return std::move(table_);
}

}  // namespace privrisk
