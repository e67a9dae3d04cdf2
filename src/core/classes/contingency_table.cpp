#include "classes/contingency_table.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>

#include "common/byte_form.hpp"
#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

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
    // Hostile histograms could make these sums overflow; refuse instead.
    auto add = [](int64_t& into, int64_t a, int64_t times) {
        int64_t product;
        if (__builtin_mul_overflow(a, times, &product) || __builtin_add_overflow(into, product, &into))
            fail(ErrorKind::ProgramLimit, "the release counts more than 2^63 - 1 rows");
    };
    int64_t size = 0;
    for (std::size_t i = 0; i < n; ++i) {
        add(size, pairs[i].second, 1);
        add(base_[pairs[i].first], pairs[i].second, multiplicity);
    }
    add(rows_, size, multiplicity);
    add(classes_, multiplicity, 1);
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

std::string ContingencyTable::serialize() const {
    std::string out;
    put_bytes<uint32_t>(out, static_cast<uint32_t>(values_.size()));
    for (const auto& v : values_) {
        put_bytes<uint8_t>(out, v ? 1 : 0);
        put_bytes<uint32_t>(out, v ? static_cast<uint32_t>(v->size()) : 0);
        if (v) out += *v;
    }
    put_bytes<uint64_t>(out, static_cast<uint64_t>(all_.size()));
    for (const Class& c : all_) {
        put_bytes<uint32_t>(out, c.distinct);
        put_bytes<int64_t>(out, c.multiplicity);
        for (const Pair& p : counts(c)) {
            put_bytes<uint32_t>(out, p.first);
            put_bytes<int64_t>(out, p.second);
        }
    }
    return out;
}

void ContingencyTable::add_serialized(std::string_view bytes) {
    ByteReader r{bytes, "a contingency table"};
    uint32_t m = r.get<uint32_t>();
    r.need(std::size_t(m) * 5);
    std::vector<uint32_t> ids;
    ids.reserve(m);
    for (uint32_t v = 0; v < m; ++v) {
        uint8_t present = r.get<uint8_t>();
        std::string_view text = r.bytes(r.get<uint32_t>());
        if (present > 1 || (!present && !text.empty()))
            fail(ErrorKind::InvalidParameter, "a contingency table's value is malformed");
        ids.push_back(intern(present ? Value(text) : Value()));
    }
    uint64_t classes = r.get<uint64_t>();
    r.need(classes * (sizeof(uint32_t) + sizeof(int64_t)));
    std::vector<Pair> pairs;
    for (uint64_t k = 0; k < classes; ++k) {
        uint32_t n = r.get<uint32_t>();
        int64_t multiplicity = r.get<int64_t>();
        if (n == 0 || multiplicity <= 0) fail(ErrorKind::InvalidParameter, "a contingency table's class is malformed");
        r.need(std::size_t(n) * (sizeof(uint32_t) + sizeof(int64_t)));
        pairs.clear();
        for (uint32_t i = 0; i < n; ++i) {
            uint32_t id = r.get<uint32_t>();
            int64_t count = r.get<int64_t>();
            if (id >= m || count <= 0) fail(ErrorKind::InvalidParameter, "a contingency table's count is malformed");
            pairs.emplace_back(ids[id], count);
        }
        add_class(pairs.data(), n, multiplicity);
    }
    if (!r.in.empty()) fail(ErrorKind::InvalidParameter, "a contingency table's byte form has trailing bytes");
}

}  // namespace privrisk
