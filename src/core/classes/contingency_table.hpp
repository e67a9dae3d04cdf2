// The table of classes of a release: every class with its sensitive counts,
// the contingency table of [BS08]. Measures (src/core/measures/) read it;
// the classes' builders (class sets, aggregators, node classes) fill it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "classes/class_histogram.hpp"
#include "common/flat_index.hpp"
#include "hierarchy/hierarchy.hpp"  // Value: a value or ⊥

namespace privrisk {

// The classes of a release with their sensitive counts: the contingency table
// of [BS08] Sensitive values are interned to ids; ⊥ is a value too.
class ContingencyTable {
public:
    using Pair = std::pair<uint32_t, int64_t>;  // (value id, count), count > 0
    struct Class {
        uint64_t offset;    // of the class's pairs in the table's pair array
        uint32_t distinct;  // number of pairs
        int64_t size;
        int64_t multiplicity;  // identical classes are stored once
    };
    struct Counts {  // the pairs of one class, sorted by value id once canonical
        const Pair* first;
        const Pair* last;
        const Pair* begin() const { return first; }
        const Pair* end() const { return last; }
        std::size_t size() const { return static_cast<std::size_t>(last - first); }
    };

    uint32_t intern(Value value);
    void reserve(std::size_t classes, std::size_t pairs) {
        all_.reserve(classes);
        pairs_.reserve(pairs);
    }
    void add_class(const Pair* pairs, std::size_t n, int64_t multiplicity = 1);
    void add_class(const std::vector<Pair>& pairs, int64_t multiplicity = 1) {
        add_class(pairs.data(), pairs.size(), multiplicity);
    }
    void add_class(HistogramView h, int64_t multiplicity = 1);

    // A canonical table from `values` in canonical order and parts whose classes
    // (with their multiplicities) use those ids with their pairs in id order
    // (merge_class_runs), all checked: no canonicalize() needed, so the leader of
    // a parallel read only appends.
    static ContingencyTable from_canonical_parts(std::vector<std::optional<std::string>> values,
                                                 const std::vector<std::string_view>& parts);

    // Puts values in one canonical order (bytewise, ⊥ last) and each class's
    // pairs in value order. With sums over classes kept exact, every measure is
    // then the same bit for bit whatever order the rows or classes arrived in
    // (serial or parallel plans).
    void canonicalize();

    int64_t rows() const { return rows_; }
    int64_t classes() const { return classes_; }
    const std::vector<Class>& all() const { return all_; }
    Counts counts(const Class& c) const {
        return Counts{pairs_.data() + c.offset, pairs_.data() + c.offset + c.distinct};
    }
    const std::vector<int64_t>& base() const { return base_; }  // table count per value id
    const std::vector<std::optional<std::string>>& values() const { return values_; }
    uint32_t distinct() const { return static_cast<uint32_t>(values_.size()); }

private:
    void index_values();  // ids_, id_of_ and bottom_id_ from values_

    // Compact storage: one array of pairs, classes as (offset, length) into it.
    std::vector<Class> all_;
    std::vector<Pair> pairs_;
    std::vector<int64_t> base_;
    std::vector<std::optional<std::string>> values_;
    FlatIndex ids_{std::pmr::new_delete_resource()};  // value bytes -> index into id_of_
    std::vector<uint32_t> id_of_;                     // -> value id (⊥ takes an id but no key)
    std::optional<uint32_t> bottom_id_;
    int64_t rows_ = 0, classes_ = 0;
};

}  // namespace privrisk
