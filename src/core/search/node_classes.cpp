#include "search/node_classes.hpp"

#include <algorithm>
#include <cstring>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

namespace {

uint64_t hash_key(const uint32_t* key, std::size_t width) {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (std::size_t i = 0; i < width; ++i) {
        h ^= key[i];
        h *= 0xff51afd7ed558ccdull;
        h ^= h >> 32;
    }
    return h;
}

}  // namespace

ClassKeys::ClassKeys(std::size_t expected) {
    std::size_t n = 1024;
    while (n < 2 * expected) n *= 2;
    slots_.assign(n, 0);
}

uint32_t ClassKeys::find_or_add(NodeClasses& c, const uint32_t* key) {
    if (2 * (c.classes() + 1) > slots_.size()) rehash(c);
    const std::size_t width = c.width, mask = slots_.size() - 1;
    const uint64_t h = hash_key(key, width), tag = h >> 32;
    std::size_t i = h & mask;
    while (uint64_t s = slots_[i]) {
        if ((s >> 32) == tag) {  // the tag spares most key comparisons
            const uint32_t* other = c.key((s & 0xffffffff) - 1);
            std::size_t j = 0;
            while (j < width && other[j] == key[j]) ++j;
            if (j == width) return static_cast<uint32_t>((s & 0xffffffff) - 1);
        }
        i = (i + 1) & mask;
    }
    if (c.classes() >= UINT32_MAX - 1) fail(ErrorKind::ProgramLimit, "more than 2^32 - 2 classes");
    c.keys.insert(c.keys.end(), key, key + width);
    c.sizes.push_back(0);
    slots_[i] = tag << 32 | c.classes();
    return static_cast<uint32_t>(c.classes() - 1);
}

void ClassKeys::rehash(const NodeClasses& c) {
    std::vector<uint64_t> bigger(slots_.size() * 2, 0);
    const std::size_t mask = bigger.size() - 1;
    for (uint64_t s : slots_) {
        if (!s) continue;
        std::size_t i = hash_key(c.key((s & 0xffffffff) - 1), c.width) & mask;
        while (bigger[i]) i = (i + 1) & mask;
        bigger[i] = s;
    }
    slots_.swap(bigger);
}

BaseClassBuilder::BaseClassBuilder(std::size_t width, bool histograms, std::size_t compact_rows)
    : histograms_(histograms), compact_rows_(std::max<std::size_t>(compact_rows, 1)) {
    classes_.width = width;
}

void BaseClassBuilder::add(const uint32_t* codes, uint32_t sensitive) {
    uint32_t c = keys_.find_or_add(classes_, codes);
    ++classes_.sizes[c];
    if (!histograms_) return;
    rows_.push_back(uint64_t(c) << 32 | sensitive);
    if (rows_.size() >= compact_rows_) compact();
}

void BaseClassBuilder::add(const uint32_t* codes, uint32_t sensitive, int64_t count) {
    uint32_t c = keys_.find_or_add(classes_, codes);
    classes_.sizes[c] += count;
    if (!histograms_) return;
    counted_.emplace_back(uint64_t(c) << 32 | sensitive, count);
    // A class may come several times (from each shard that met it): merged as compact()
    // merges, so what is held grows with the distinct pairs.
    if (counted_.size() >= std::max(2 * merged_, compact_rows_)) merge_pairs();
}

namespace {

// A sorted range's entries with their equal pairs' counts summed, written from `out`
// on (which may be the range's start: it never passes what is read); returns their end.
template <typename In, typename Out>
Out sum_equal(In first, In last, Out out) {
    for (In i = first; i != last;) {
        int64_t count = 0;
        In j = i;
        for (; j != last && j->first == i->first; ++j) count += j->second;
        *out++ = {i->first, count};
        i = j;
    }
    return out;
}

// Sorts (class << 32 | value, count) entries by pair and sums those of equal pairs: a
// counting sort by class (two passes, as much memory again for a moment), then each
// class's few entries in order. A std::sort of every entry cost a fifth of a sharded
// search's read at 1M rows.
void merge_counted_by_class(std::vector<std::pair<uint64_t, int64_t>>& counted, std::size_t classes) {
    using Entry = std::pair<uint64_t, int64_t>;
    // start[c + 1] counts class c's entries, then (summed) is where class c + 1 starts; it
    // serves as class c's cursor while the entries are placed, and ends as its start again.
    std::vector<std::size_t> start(classes + 2, 0);
    for (const Entry& e : counted) ++start[(e.first >> 32) + 2];
    for (std::size_t c = 1; c <= classes; ++c) start[c + 1] += start[c];
    std::vector<Entry> by_class(counted.size());
    for (const Entry& e : counted) by_class[start[(e.first >> 32) + 1]++] = e;
    auto out = counted.begin();
    for (std::size_t c = 0; c < classes; ++c) {
        const auto first = by_class.begin() + static_cast<std::ptrdiff_t>(start[c]);
        const auto last = by_class.begin() + static_cast<std::ptrdiff_t>(start[c + 1]);
        if (last - first > 32) {
            std::sort(first, last);
        } else {  // a class's few values: insertion, without std::sort's call per class
            for (auto i = first; i != last; ++i)
                for (auto j = i; j != first && *j < *(j - 1); --j) std::iter_swap(j, j - 1);
        }
        out = sum_equal(first, last, out);
    }
    counted.erase(out, counted.end());
}

}  // namespace

void BaseClassBuilder::compact(bool merge) {
    // Rows added one by one are runs of equal entries once sorted.
    std::sort(rows_.begin(), rows_.end());
    for (std::size_t i = 0; i < rows_.size();) {
        std::size_t j = i;
        while (j < rows_.size() && rows_[j] == rows_[i]) ++j;
        counted_.emplace_back(rows_[i], static_cast<int64_t>(j - i));
        i = j;
    }
    rows_.clear();  // keeps its capacity for the next rows
    // The pairs merged once they have doubled since the last merge: amortized, and
    // what is held stays within twice the distinct (class, value) pairs.
    if (merge && counted_.size() >= std::max<std::size_t>(2 * merged_, std::size_t(1) << 16)) merge_pairs();
}

void BaseClassBuilder::merge_pairs() {
    merge_counted_by_class(counted_, classes_.classes());
    merged_ = counted_.size();
}

NodeClasses BaseClassBuilder::finish() {
    keys_ = ClassKeys();  // the classes are all in: their index is not needed for the pairs
    if (histograms_) {
        compact(false);  // merged by class below
        std::vector<uint64_t>().swap(rows_);
        merge_counted_by_class(counted_, classes_.classes());
        classes_.first.assign(classes_.classes() + 1, 0);
        for (const auto& [pair, count] : counted_) {
            classes_.pairs.emplace_back(static_cast<uint32_t>(pair), count);
            ++classes_.first[(pair >> 32) + 1];
        }
        for (std::size_t c = 0; c < classes_.classes(); ++c) classes_.first[c + 1] += classes_.first[c];
        std::vector<std::pair<uint64_t, int64_t>>().swap(counted_);
    }
    return std::move(classes_);
}

NodeClasses roll_up(const NodeClasses& from, const std::vector<const uint32_t*>& maps, uint32_t sensitive_values,
                    const std::vector<int>& bits, void (*interrupt)(void*), void* interrupt_arg) {
    const std::size_t width = from.width, n = from.classes();
    NodeClasses to;
    to.width = width;
    to.keys.reserve(width * (n / 4 + 16));  // a roll-up merges classes; growth past this is rare enough
    to.sizes.reserve(n / 4 + 16);
    std::vector<uint32_t> parent(from.has_histograms() ? n : 0), key(width);
    if (!bits.empty()) {
        // One word per key: a multiply to hash it, a compare to match it.
        std::size_t capacity = 1024;
        while (capacity < n / 2) capacity *= 2;
        std::vector<uint64_t> words(capacity);
        std::vector<uint32_t> slots(capacity, 0);  // class index + 1
        for (std::size_t c = 0; c < n; ++c) {
            if ((c & 0xffff) == 0xffff && interrupt) interrupt(interrupt_arg);
            const uint32_t* k = from.key(c);
            uint64_t word = 0;
            for (std::size_t j = 0; j < width; ++j) {
                key[j] = maps[j][k[j]];
                word = word << bits[j] | key[j];
            }
            if (2 * (to.classes() + 1) > capacity) {  // grow: re-place every word
                capacity *= 2;
                std::vector<uint64_t> w2(capacity);
                std::vector<uint32_t> s2(capacity, 0);
                for (std::size_t i = 0; i < slots.size(); ++i) {
                    if (!slots[i]) continue;
                    std::size_t at = (words[i] * 0x9e3779b97f4a7c15ull) >> 20 & (capacity - 1);
                    while (s2[at]) at = (at + 1) & (capacity - 1);
                    w2[at] = words[i];
                    s2[at] = slots[i];
                }
                words.swap(w2);
                slots.swap(s2);
            }
            std::size_t at = (word * 0x9e3779b97f4a7c15ull) >> 20 & (capacity - 1);
            while (slots[at] && words[at] != word) at = (at + 1) & (capacity - 1);
            if (!slots[at]) {
                words[at] = word;
                to.keys.insert(to.keys.end(), key.begin(), key.end());
                to.sizes.push_back(0);
                slots[at] = static_cast<uint32_t>(to.classes());
            }
            uint32_t p = slots[at] - 1;
            to.sizes[p] += from.sizes[c];
            if (!parent.empty()) parent[c] = p;
        }
    } else {
        ClassKeys table(std::min<std::size_t>(n / 4, 1 << 20));  // rolling up merges classes: start small
        for (std::size_t c = 0; c < n; ++c) {
            if ((c & 0xffff) == 0xffff && interrupt) interrupt(interrupt_arg);
            const uint32_t* k = from.key(c);
            for (std::size_t j = 0; j < width; ++j) key[j] = maps[j][k[j]];
            uint32_t p = table.find_or_add(to, key.data());
            to.sizes[p] += from.sizes[c];
            if (!parent.empty()) parent[c] = p;
        }
    }
    if (!from.has_histograms()) return to;

    // The children of each parent (counting sort), then each parent's histogram
    // as the sum of its children's, accumulated densely by sensitive id.
    const std::size_t m = to.classes();
    std::vector<uint64_t> start(m + 1, 0);
    for (std::size_t c = 0; c < n; ++c) ++start[parent[c] + 1];
    for (std::size_t p = 0; p < m; ++p) start[p + 1] += start[p];
    std::vector<uint32_t> children(n);
    {
        std::vector<uint64_t> next(start.begin(), start.end() - 1);
        for (std::size_t c = 0; c < n; ++c) children[next[parent[c]]++] = static_cast<uint32_t>(c);
    }
    std::vector<int64_t> sum(sensitive_values, 0);
    std::vector<uint32_t> touched;
    to.first.assign(m + 1, 0);
    to.pairs.reserve(std::min<std::size_t>(from.pairs.size(), m * 4));
    for (std::size_t p = 0; p < m; ++p) {
        if ((p & 0xffff) == 0xffff && interrupt) interrupt(interrupt_arg);
        touched.clear();
        for (uint64_t i = start[p]; i < start[p + 1]; ++i) {
            uint32_t c = children[i];
            for (uint64_t q = from.first[c]; q < from.first[c + 1]; ++q) {
                auto [id, count] = from.pairs[q];
                if (sum[id] == 0) touched.push_back(id);
                sum[id] += count;
            }
        }
        std::sort(touched.begin(), touched.end());
        for (uint32_t id : touched) {
            to.pairs.emplace_back(id, sum[id]);
            sum[id] = 0;
        }
        to.first[p + 1] = to.pairs.size();
    }
    return to;
}

ContingencyTable contingency_table(const NodeClasses& classes,
                                   const std::vector<std::optional<std::string>>& sensitive_values) {
    ContingencyTable table;
    std::vector<uint32_t> id_of(sensitive_values.size());  // sensitive id -> the table's value id
    for (std::size_t i = 0; i < sensitive_values.size(); ++i)
        id_of[i] = table.intern(sensitive_values[i] ? Value(*sensitive_values[i]) : Value());
    const std::size_t n = classes.classes();
    std::vector<ContingencyTable::Pair> pairs;
    if (!classes.has_histograms()) {
        const uint32_t bottom = table.intern(Value());
        table.reserve(n, n);
        for (std::size_t c = 0; c < n; ++c) {
            const ContingencyTable::Pair one{bottom, classes.sizes[c]};
            table.add_class(&one, 1);
        }
    } else {
        table.reserve(n, classes.pairs.size());
        for (std::size_t c = 0; c < n; ++c) {
            pairs.clear();
            for (uint64_t p = classes.first[c]; p < classes.first[c + 1]; ++p)
                pairs.emplace_back(id_of.at(classes.pairs[p].first), classes.pairs[p].second);
            table.add_class(pairs);
        }
    }
    table.canonicalize();
    return table;
}

}  // namespace privrisk
