// The equivalence classes of one lattice node, keyed by the node's codes: the
// level-0 ("base") classes built from the rows in one pass, and every other
// node's classes rolled up from a finer node's (Incognito's roll-up property:
// a parent's class is the union of its children's, its histogram their sum).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measures/measures.hpp"

namespace privrisk {

struct NodeClasses {
    std::size_t width = 0;                      // quasi-identifiers
    std::vector<uint32_t> keys;                 // width codes per class
    std::vector<int64_t> sizes;                 // rows per class
    std::vector<uint64_t> first;                // per class + 1: its pairs (empty without a sensitive column)
    std::vector<ContingencyTable::Pair> pairs;  // (sensitive id, count), ids ascending within a class

    std::size_t classes() const { return sizes.size(); }
    bool has_histograms() const { return !first.empty(); }
    const uint32_t* key(std::size_t c) const { return keys.data() + c * width; }
    std::size_t bytes() const {
        return keys.size() * 4 + sizes.size() * 8 + first.size() * 8 + pairs.size() * sizeof(ContingencyTable::Pair);
    }
};

// Open addressing over the keys of a NodeClasses: finds a key's class or adds it.
class ClassKeys {
public:
    explicit ClassKeys(std::size_t expected = 0);
    uint32_t find_or_add(NodeClasses& c, const uint32_t* key);
    std::size_t bytes() const { return slots_.capacity() * sizeof(uint64_t); }

private:
    void rehash(const NodeClasses& c);
    std::vector<uint64_t> slots_;  // hash tag << 32 | (class index + 1); 0 = empty
};

// Level-0 classes from rows of codes (one code per quasi-identifier) and a
// sensitive value id. With histograms, each row's (class, value) pair is kept
// until `compact_rows` are held, then they become counted pairs, merged (as are
// pairs added with a count, a class that several shards met coming from each,
// past `compact_rows` of them) once they have doubled: what it holds grows with
// the distinct pairs, not with the rows.
class BaseClassBuilder {
public:
    static constexpr std::size_t kCompactRows = std::size_t(1) << 20;  // 8 MB of pairs
    BaseClassBuilder(std::size_t width, bool histograms, std::size_t compact_rows = kCompactRows);
    void add(const uint32_t* codes, uint32_t sensitive);
    // `count` rows at once: a class's histogram read from a shard.
    void add(const uint32_t* codes, uint32_t sensitive, int64_t count);
    NodeClasses finish();
    // What it holds now; finish(), and a merge of the pairs as they come, need about as
    // much again for a moment to sort the histograms.
    std::size_t bytes() const {
        return classes_.bytes() + keys_.bytes() + rows_.capacity() * sizeof(uint64_t) +
               counted_.capacity() * sizeof(std::pair<uint64_t, int64_t>);
    }

private:
    // The rows added one by one into counted pairs; those merged too past twice their last
    // merge's size, with `merge`.
    void compact(bool merge = true);
    void merge_pairs();  // counted_ sorted and summed by pair

    NodeClasses classes_;
    ClassKeys keys_;
    bool histograms_;
    std::size_t compact_rows_;
    std::size_t merged_ = 0;      // counted_'s size after its last merge
    std::vector<uint64_t> rows_;  // (class << 32 | sensitive id) per row since the last compaction
    std::vector<std::pair<uint64_t, int64_t>> counted_;  // the same with a count: compacted rows, add(…, count)
};

// The classes of a coarser node: maps[j][code] is the code at the target level
// of quasi-identifier j for each code of `from`. When `bits` is given (bits[j]
// holds every code of quasi-identifier j, 64 bits in all), keys are hashed and
// compared packed into one word. `interrupt` is called every 64 k classes (a
// long roll-up stays cancellable).
NodeClasses roll_up(const NodeClasses& from, const std::vector<const uint32_t*>& maps, uint32_t sensitive_values,
                    const std::vector<int>& bits, void (*interrupt)(void*), void* interrupt_arg);

// The same classes as a canonical ContingencyTable, whose measures are audit()'s:
// each class's histogram over `sensitive_values` (the texts of the sensitive ids,
// nullopt for ⊥), or without histograms one pair (⊥, size), as a class aggregation
// keyed by its rows gives it.
ContingencyTable contingency_table(const NodeClasses& classes,
                                   const std::vector<std::optional<std::string>>& sensitive_values);

}  // namespace privrisk
