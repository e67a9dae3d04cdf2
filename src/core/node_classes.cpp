#include "node_classes.hpp"

#include <algorithm>
#include <cstring>

#include "error.hpp"
#include "no_postgres.hpp"

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
    std::size_t mask = slots_.size() - 1, i = hash_key(key, c.width) & mask;
    while (uint32_t s = slots_[i]) {
        if (std::memcmp(c.key(s - 1), key, c.width * 4) == 0) return s - 1;
        i = (i + 1) & mask;
    }
    if (c.classes() >= UINT32_MAX - 1) fail(ErrorKind::ProgramLimit, "more than 2^32 - 2 classes");
    c.keys.insert(c.keys.end(), key, key + c.width);
    c.sizes.push_back(0);
    slots_[i] = static_cast<uint32_t>(c.classes());
    return slots_[i] - 1;
}

void ClassKeys::rehash(const NodeClasses& c) {
    std::vector<uint32_t> bigger(slots_.size() * 2, 0);
    std::size_t mask = bigger.size() - 1;
    for (uint32_t s : slots_) {
        if (!s) continue;
        std::size_t i = hash_key(c.key(s - 1), c.width) & mask;
        while (bigger[i]) i = (i + 1) & mask;
        bigger[i] = s;
    }
    slots_.swap(bigger);
}

BaseClassBuilder::BaseClassBuilder(std::size_t width, bool histograms) : histograms_(histograms) {
    classes_.width = width;
}

void BaseClassBuilder::add(const uint32_t* codes, uint32_t sensitive) {
    uint32_t c = keys_.find_or_add(classes_, codes);
    ++classes_.sizes[c];
    if (histograms_) rows_.push_back(uint64_t(c) << 32 | sensitive);
}

NodeClasses BaseClassBuilder::finish() {
    if (histograms_) {
        std::sort(rows_.begin(), rows_.end());
        classes_.first.assign(classes_.classes() + 1, 0);
        for (std::size_t i = 0; i < rows_.size();) {
            std::size_t j = i;
            while (j < rows_.size() && rows_[j] == rows_[i]) ++j;
            classes_.pairs.emplace_back(static_cast<uint32_t>(rows_[i]), static_cast<int64_t>(j - i));
            ++classes_.first[(rows_[i] >> 32) + 1];
            i = j;
        }
        for (std::size_t c = 0; c < classes_.classes(); ++c) classes_.first[c + 1] += classes_.first[c];
        std::vector<uint64_t>().swap(rows_);
    }
    keys_ = ClassKeys();
    return std::move(classes_);
}

NodeClasses roll_up(const NodeClasses& from, const std::vector<const uint32_t*>& maps, uint32_t sensitive_values,
                    void (*interrupt)(void*), void* interrupt_arg) {
    const std::size_t width = from.width, n = from.classes();
    NodeClasses to;
    to.width = width;
    ClassKeys table(std::min<std::size_t>(n, 1 << 20));
    std::vector<uint32_t> parent(n), key(width);
    for (std::size_t c = 0; c < n; ++c) {
        if ((c & 0xffff) == 0xffff && interrupt) interrupt(interrupt_arg);
        const uint32_t* k = from.key(c);
        for (std::size_t j = 0; j < width; ++j) key[j] = maps[j][k[j]];
        parent[c] = table.find_or_add(to, key.data());
        to.sizes[parent[c]] += from.sizes[c];
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

}  // namespace privrisk
