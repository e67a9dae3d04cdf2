#include "classes/class_aggregator.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

ClassAggregator::ClassAggregator(std::pmr::memory_resource* mr, std::size_t quasi_identifiers,
                                 std::size_t buffer_rows)
    : mr_(mr),
      qi_count_(quasi_identifiers),
      record_words_(quasi_identifiers + 1),
      codes_(mr),
      partitions_(mr),
      record_(quasi_identifiers + 1),
      buffer_rows_(buffer_rows ? buffer_rows : 1) {
    if (record_words_ > kBlockWords) fail(ErrorKind::ProgramLimit, "too many quasi-identifiers");
    for (std::size_t i = 0; i < quasi_identifiers; ++i) codes_.emplace_back(mr);
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
    // Code each value: code 0 is ⊥, a value gets its index + 1.
    for (std::size_t i = 0; i < qi_count_; ++i) {
        if (!qi[i]) {
            record_[i] = 0;
            continue;
        }
        uint32_t code = codes_[i].find_or_add(*qi[i]);
        if (code >= UINT32_MAX - 1) fail(ErrorKind::ProgramLimit, "too many distinct quasi-identifier values");
        record_[i] = code + 1;
    }
    record_[qi_count_] = table_.intern(sensitive);
    Partition& p = partitions_[hash_codes(record_.data(), qi_count_) >> (64 - kPartitionBits)];
    if (p.blocks.empty() || p.used + record_words_ > kBlockWords) {
        if (!p.blocks.empty()) ++p.full_blocks, p.used = 0;
        if (p.full_blocks == p.blocks.size())
            p.blocks.push_back(static_cast<uint32_t*>(mr_->allocate(kBlockWords * sizeof(uint32_t), alignof(uint32_t))));
    }
    uint32_t* to = p.blocks[p.full_blocks] + p.used;  // a few words: a loop, not a library call
    for (std::size_t w = 0; w < record_words_; ++w) to[w] = record_[w];
    p.used += record_words_;
    ++rows_;
    if (++buffered_ == buffer_rows_) fold_all();
}

void ClassAggregator::add_class_row(Partition& p, const uint32_t* row) {
    const std::size_t k = qi_count_;
    if (2 * (p.first.size() + 1) > p.slots.size()) {  // keep the load under one half
        std::size_t n = std::max<std::size_t>(64, 2 * p.slots.size());
        p.slots.assign(n, 0);
        for (uint32_t id = 0; id < p.first.size(); ++id) {
            std::size_t i = hash_codes(p.keys.data() + std::size_t(id) * k, k) & (n - 1);
            while (p.slots[i] != 0) i = (i + 1) & (n - 1);
            p.slots[i] = id + 1;
        }
    }
    std::size_t mask = p.slots.size() - 1;
    uint32_t id;
    for (std::size_t i = hash_codes(row, k) & mask;; i = (i + 1) & mask) {
        if (p.slots[i] == 0) {
            id = static_cast<uint32_t>(p.first.size());
            p.slots[i] = id + 1;
            p.keys.insert(p.keys.end(), row, row + k);
            p.first.push_back(UINT32_MAX);
            break;
        }
        if (std::equal(row, row + k, p.keys.data() + std::size_t(p.slots[i] - 1) * k)) {
            id = p.slots[i] - 1;
            break;
        }
    }
    uint32_t value = row[k];
    for (uint32_t c = p.first[id]; c != UINT32_MAX; c = p.cells[c].next)
        if (p.cells[c].value == value) {
            ++p.cells[c].count;
            return;
        }
    if (p.cells.size() >= UINT32_MAX - 1) fail(ErrorKind::ProgramLimit, "too many classes for audit()");
    p.cells.push_back(Cell{value, p.first[id], 1});
    p.first[id] = static_cast<uint32_t>(p.cells.size() - 1);
}

void ClassAggregator::fold(Partition& p) {
    if (p.blocks.empty()) return;
    const std::size_t words = record_words_, per_block = (kBlockWords / words) * words;
    for (std::size_t b = 0; b <= p.full_blocks && b < p.blocks.size(); ++b) {
        std::size_t end = b == p.full_blocks ? p.used : per_block;
        for (std::size_t w = 0; w < end; w += words) add_class_row(p, p.blocks[b] + w);
    }
    p.full_blocks = 0;  // the blocks stay, for the next rows
    p.used = 0;
}

void ClassAggregator::fold_all() {
    for (Partition& p : partitions_) fold(p);
    buffered_ = 0;
}

ContingencyTable ClassAggregator::finish() {
    fold_all();
    std::size_t classes = 0, pairs = 0;
    for (const Partition& p : partitions_) classes += p.first.size(), pairs += p.cells.size();
    table_.reserve(classes, pairs);
    std::vector<ContingencyTable::Pair> counts;
    for (Partition& p : partitions_) {
        for (uint32_t id = 0; id < p.first.size(); ++id) {
            counts.clear();
            for (uint32_t c = p.first[id]; c != UINT32_MAX; c = p.cells[c].next)
                counts.emplace_back(p.cells[c].value, p.cells[c].count);
            table_.add_class(counts);
        }
        for (uint32_t* block : p.blocks) mr_->deallocate(block, kBlockWords * sizeof(uint32_t), alignof(uint32_t));
        p = Partition(mr_);  // give the partition's memory back as we go
    }
    table_.canonicalize();
    return std::move(table_);
}

}  // namespace privrisk
