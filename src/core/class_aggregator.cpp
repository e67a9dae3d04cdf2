#include "class_aggregator.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "error.hpp"
#include "no_postgres.hpp"

namespace privrisk {

ClassAggregator::ClassAggregator(std::pmr::memory_resource* mr, std::size_t quasi_identifiers)
    : mr_(mr),
      qi_count_(quasi_identifiers),
      record_words_(quasi_identifiers + 1),
      dictionaries_(mr),
      partitions_(mr),
      record_(quasi_identifiers + 1) {
    if (record_words_ > kBlockWords) fail(ErrorKind::ProgramLimit, "too many quasi-identifiers");
    for (std::size_t i = 0; i < quasi_identifiers; ++i) dictionaries_.emplace_back(mr);
    for (std::size_t p = 0; p < kPartitions; ++p) partitions_.emplace_back(mr);
}

uint64_t ClassAggregator::hash_codes(const uint32_t* codes, std::size_t k) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ k;
    for (std::size_t i = 0; i < k; ++i) {
        h ^= codes[i];
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    h *= 0x94d049bb133111ebull;
    h ^= h >> 29;
    return h;
}

void ClassAggregator::add(const Value* qi, Value sensitive) {
    // Dictionary-encode: code 0 is ⊥, a value gets its index + 1.
    for (std::size_t i = 0; i < qi_count_; ++i) {
        if (!qi[i]) {
            record_[i] = 0;
            continue;
        }
        uint32_t code = dictionaries_[i].find_or_add(*qi[i]);
        if (code >= UINT32_MAX - 1) fail(ErrorKind::ProgramLimit, "too many distinct quasi-identifier values");
        record_[i] = code + 1;
    }
    record_[qi_count_] = table_.intern(sensitive);
    Partition& p = partitions_[hash_codes(record_.data(), qi_count_) >> (64 - kPartitionBits)];
    if (p.blocks.empty() || p.used + record_words_ > kBlockWords) {
        p.blocks.push_back(static_cast<uint32_t*>(mr_->allocate(kBlockWords * sizeof(uint32_t), alignof(uint32_t))));
        p.used = 0;
    }
    std::memcpy(p.blocks.back() + p.used, record_.data(), record_words_ * sizeof(uint32_t));
    p.used += record_words_;
    ++rows_;
}

// Aggregates one partition's rows into classes (codes -> (value, count) pairs)
// with a table sized for the partition, then hands the classes to `table`.
void ClassAggregator::aggregate(Partition& p, ContingencyTable& table) {
    const std::size_t k = qi_count_, words = record_words_;
    std::size_t rows = p.blocks.empty() ? 0 : (p.blocks.size() - 1) * (kBlockWords / words) + p.used / words;
    if (rows == 0) return;
    // Slots: class id + 1 (0 = empty); classes: their first row's codes, and counts.
    std::size_t nslots = 16;
    while (nslots < 2 * rows && nslots < (std::size_t(1) << 31)) nslots <<= 1;
    std::pmr::vector<uint32_t> slots(nslots, 0, mr_);
    std::pmr::vector<const uint32_t*> keys(mr_);          // by class id: its codes
    std::pmr::vector<uint32_t> first(mr_);                 // by class id: head of its pair list
    struct Cell {
        uint32_t value, next;
        int64_t count;
    };
    std::pmr::vector<Cell> cells(mr_);
    std::size_t mask = nslots - 1;
    auto each_row = [&](auto&& f) {
        for (std::size_t b = 0; b < p.blocks.size(); ++b) {
            std::size_t end = b + 1 == p.blocks.size() ? p.used : (kBlockWords / words) * words;
            for (std::size_t w = 0; w < end; w += words) f(p.blocks[b] + w);
        }
    };
    each_row([&](const uint32_t* row) {
        std::size_t i = hash_codes(row, k) & mask;
        uint32_t id;
        for (;; i = (i + 1) & mask) {
            if (slots[i] == 0) {
                id = static_cast<uint32_t>(keys.size());
                slots[i] = id + 1;
                keys.push_back(row);
                first.push_back(UINT32_MAX);
                break;
            }
            if (std::memcmp(keys[slots[i] - 1], row, k * sizeof(uint32_t)) == 0) {
                id = slots[i] - 1;
                break;
            }
        }
        uint32_t value = row[k];
        for (uint32_t c = first[id]; c != UINT32_MAX; c = cells[c].next)
            if (cells[c].value == value) {
                ++cells[c].count;
                return;
            }
        cells.push_back(Cell{value, first[id], 1});
        first[id] = static_cast<uint32_t>(cells.size() - 1);
    });
    std::vector<ContingencyTable::Pair> counts;
    for (uint32_t id = 0; id < keys.size(); ++id) {
        counts.clear();
        for (uint32_t c = first[id]; c != UINT32_MAX; c = cells[c].next) counts.emplace_back(cells[c].value, cells[c].count);
        table.add_class(counts);
    }
}

ContingencyTable ClassAggregator::finish() {
    for (Partition& p : partitions_) {
        aggregate(p, table_);
        for (uint32_t* block : p.blocks) mr_->deallocate(block, kBlockWords * sizeof(uint32_t), alignof(uint32_t));
        p.blocks.clear();
    }
    table_.canonicalize();
    return std::move(table_);
}

}  // namespace privrisk
