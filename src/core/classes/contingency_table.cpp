#include "classes/contingency_table.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/byte_form.hpp"
#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

namespace {

// into += a · times. Hostile histograms or parts could make the sums overflow: refused instead.
void add_times(int64_t& into, int64_t a, int64_t times) {
    int64_t product;
    if (__builtin_mul_overflow(a, times, &product) || __builtin_add_overflow(into, product, &into))
        fail(ErrorKind::ProgramLimit, "the release counts more than 2^63 - 1 rows");
}

}  // namespace

uint32_t ContingencyTable::intern(Value value) {
    if (!value) {
        if (!bottom_id_) {
            bottom_id_ = static_cast<uint32_t>(values_.size());
            values_.emplace_back(std::nullopt);
            base_.push_back(0);
        }
        return *bottom_id_;
    }
    bool added;
    uint32_t key = ids_.find_or_add(*value, &added);
    if (!added) return id_of_[key];
    uint32_t id = static_cast<uint32_t>(values_.size());
    id_of_.push_back(id);
    values_.emplace_back(std::string(*value));
    base_.push_back(0);
    return id;
}

void ContingencyTable::add_class(const Pair* pairs, std::size_t n, int64_t multiplicity) {
    int64_t size = 0;
    for (std::size_t i = 0; i < n; ++i) {
        add_times(size, pairs[i].second, 1);
        add_times(base_[pairs[i].first], pairs[i].second, multiplicity);
    }
    add_times(rows_, size, multiplicity);
    add_times(classes_, multiplicity, 1);
    all_.push_back(Class{pairs_.size(), static_cast<uint32_t>(n), size, multiplicity});
    pairs_.insert(pairs_.end(), pairs, pairs + n);
}

void ContingencyTable::canonicalize() {
    std::vector<uint32_t> order(values_.size());
    std::iota(order.begin(), order.end(), 0);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        if (!values_[a] || !values_[b]) return values_[a].has_value() && !values_[b].has_value();
        return *values_[a] < *values_[b];
    });
    std::vector<uint32_t> rank(values_.size());
    for (uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
    std::vector<std::optional<std::string>> values(values_.size());
    std::vector<int64_t> base(base_.size());
    for (uint32_t id = 0; id < values_.size(); ++id) {
        values[rank[id]] = std::move(values_[id]);
        base[rank[id]] = base_[id];
    }
    values_.swap(values);
    base_.swap(base);
    index_values();
    for (auto& p : pairs_) p.first = rank[p.first];
    // Within a class, pairs by value: every per-class sum runs in value order.
    // Sums over classes are exact (ExactSum), so the classes' order does not matter.
    for (auto& c : all_) std::sort(pairs_.begin() + c.offset, pairs_.begin() + c.offset + c.distinct);
}

void ContingencyTable::add_class(HistogramView h, int64_t multiplicity) {
    std::vector<Pair> counts;
    counts.reserve(h.distinct() + 1);
    h.for_each([&](std::string_view v, int64_t c) { counts.emplace_back(intern(v), c); });
    if (h.bottom() > 0) counts.emplace_back(intern(std::nullopt), h.bottom());
    add_class(std::move(counts), multiplicity);
}

void ContingencyTable::index_values() {
    ids_ = FlatIndex(std::pmr::new_delete_resource());
    id_of_.clear();
    bottom_id_.reset();
    for (uint32_t id = 0; id < values_.size(); ++id) {
        if (!values_[id]) {
            bottom_id_ = id;
            continue;
        }
        ids_.find_or_add(*values_[id]);
        id_of_.push_back(id);
    }
}

ContingencyTable ContingencyTable::from_canonical_parts(std::vector<std::optional<std::string>> values,
                                                        const std::vector<std::string_view>& parts) {
    for (std::size_t i = 1; i < values.size(); ++i)
        if (!values[i - 1] || (values[i] && !(*values[i - 1] < *values[i])))
            fail(ErrorKind::InvalidParameter, "a contingency table's values are not in canonical order");
    ContingencyTable t;
    t.values_ = std::move(values);
    t.base_.assign(t.values_.size(), 0);
    t.index_values();
    const uint32_t m = static_cast<uint32_t>(t.values_.size());
    std::size_t bytes = 0;
    for (std::string_view part : parts) bytes += part.size();
    t.reserve(bytes / 14, bytes / 2);  // an entry takes at least 14 bytes, a pair 2
    for (std::string_view part : parts) {
        ByteReader r{part, "a contingency table part"};
        uint64_t entries = r.get<uint64_t>();
        r.need(std::min<uint64_t>(entries, part.size()) * (sizeof(int64_t) + sizeof(uint32_t)));
        for (uint64_t k = 0; k < entries; ++k) {
            int64_t multiplicity = r.get<int64_t>();
            ByteReader pairs{r.bytes(r.get<uint32_t>()), "a contingency table part"};
            if (multiplicity <= 0)
                fail(ErrorKind::InvalidParameter, "a contingency table part's multiplicity is not positive");
            if (pairs.in.empty()) fail(ErrorKind::InvalidParameter, "a contingency table part's class is empty");
            const uint64_t offset = t.pairs_.size();
            int64_t size = 0;
            while (!pairs.in.empty()) {
                const uint64_t id = pairs.varint(), count = pairs.varint();
                if (id >= m || count == 0 || count > uint64_t(INT64_MAX) ||
                    (t.pairs_.size() > offset && id <= t.pairs_.back().first))
                    fail(ErrorKind::InvalidParameter, "a contingency table part's pair is malformed");
                add_times(size, static_cast<int64_t>(count), 1);
                add_times(t.base_[id], static_cast<int64_t>(count), multiplicity);
                t.pairs_.emplace_back(static_cast<uint32_t>(id), static_cast<int64_t>(count));
            }
            add_times(t.rows_, size, multiplicity);
            add_times(t.classes_, multiplicity, 1);
            t.all_.push_back(Class{offset, static_cast<uint32_t>(t.pairs_.size() - offset), size, multiplicity});
        }
        if (!r.in.empty()) fail(ErrorKind::InvalidParameter, "a contingency table part has trailing bytes");
    }
    return t;
}

}  // namespace privrisk
