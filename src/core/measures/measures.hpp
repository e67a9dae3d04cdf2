// Risk and privacy measures of a release (docs/measures.md; [BS08]-3.3; Li et
// al. t-closeness for the ordered and hierarchical ground distances).
// Every measure returns the release's level (not a yes/no); nullopt for an
// empty release. Entropies and δ are in nats.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "classes/class_histogram.hpp"
#include "common/flat_index.hpp"
#include "hierarchy/hierarchy.hpp"

namespace privrisk {

// The classes of a release with their sensitive counts: the contingency table
// of [BS08] Sensitive values are interned to ids; ⊥ is a value too.
class ContingencyTable {
public:
    using Pair = std::pair<uint32_t, int64_t>;  // (value id, count), count > 0
    struct Class {
        uint64_t offset;       // of the class's pairs in the table's pair array
        uint32_t distinct;     // number of pairs
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

    // Puts values in one canonical order (bytewise, ⊥ last) and each class's
    // pairs in value order. With sums over classes kept exact, every measure is
    // then the same bit for bit whatever order the rows or classes arrived in
    // (serial or parallel plans).
    void canonicalize();

    int64_t rows() const { return rows_; }
    int64_t classes() const { return classes_; }
    const std::vector<Class>& all() const { return all_; }
    Counts counts(const Class& c) const { return Counts{pairs_.data() + c.offset, pairs_.data() + c.offset + c.distinct}; }
    const std::vector<int64_t>& base() const { return base_; }       // table count per value id
    const std::vector<std::optional<std::string>>& values() const { return values_; }
    uint32_t distinct() const { return static_cast<uint32_t>(values_.size()); }

private:
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

// Identity measures (no sensitive attribute needed).
std::optional<int64_t> k_anonymity(const ContingencyTable& t);
std::optional<double> prosecutor_risk(const ContingencyTable& t);   // max 1/|class|
std::optional<double> average_risk(const ContingencyTable& t);      // classes / rows
std::optional<double> records_at_risk(const ContingencyTable& t, double threshold);  // share with 1/|class| > threshold

// ℓ-diversity levels: the largest ℓ every class satisfies. The class-level
// measures below also give each class's own value in *per_class (in the
// table's class order) when asked: what a search needs to suppress classes.
double class_l_distinct(HistogramView h);             // distinct values (⊥ included)
double class_l_entropy(HistogramView h);              // exp(H(class))
double class_l_recursive(HistogramView h, double c);  // largest ℓ with r1 < c (r_ℓ + … + r_m)
std::optional<double> l_distinct(const ContingencyTable& t, std::vector<double>* per_class = nullptr);
std::optional<double> l_entropy(const ContingencyTable& t, std::vector<double>* per_class = nullptr);
std::optional<double> l_recursive(const ContingencyTable& t, double c, std::vector<double>* per_class = nullptr);

// t-closeness level: the largest distance of a class's distribution from the table's.
std::optional<double> t_equal(const ContingencyTable& t, std::vector<double>* per_class = nullptr);  // variational distance (EMD, equal ground distance)
// Ordered EMD over the values' order: numeric when every value is a number, else bytewise; ⊥ last.
std::optional<double> t_ordered(const ContingencyTable& t, std::vector<double>* per_class = nullptr);
// Hierarchical EMD with ground distance level(LCA)/height in `h` (the sensitive values are its leaves).
std::optional<double> t_hierarchical(const ContingencyTable& t, const Hierarchy& h,
                                     std::vector<double>* per_class = nullptr);

// Brickell-Shmatikov ([BS08]): δ-disclosure level (Infinity when a class lacks a
// value of the table), adversarial knowledge and accuracy gain, information gain I(S;Q).
std::optional<double> delta_disclosure(const ContingencyTable& t, std::vector<double>* per_class = nullptr);
std::optional<double> a_know(const ContingencyTable& t);
std::optional<double> a_acc(const ContingencyTable& t);
std::optional<double> information_gain(const ContingencyTable& t);

// Parameter checks shared by SQL and audit().
void check_threshold(double threshold);  // records_at_risk: 0 <= threshold <= 1
void check_c(double c);                  // recursive (c,ℓ): c > 0, finite

// Strict "a < b" where a value within 1e-12 (relative) of b counts as not below (docs/glossary.md).
bool strictly_below(double a, double b);

}  // namespace privrisk
