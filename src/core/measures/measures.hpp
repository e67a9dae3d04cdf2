// Risk and privacy measures of a release (docs/measures.md; [BS08] §2–3; [LLV07]
// for t-closeness with ordered and hierarchical ground distances).
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
#include "classes/contingency_table.hpp"
#include "hierarchy/hierarchy.hpp"

namespace privrisk {

// Identity measures (no sensitive attribute needed).
std::optional<int64_t> k_anonymity(const ContingencyTable& t);
std::optional<double> prosecutor_risk(const ContingencyTable& t);                    // max 1/|class|
std::optional<double> average_risk(const ContingencyTable& t);                       // classes / rows
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
std::optional<double> t_equal(
    const ContingencyTable& t,
    std::vector<double>* per_class = nullptr);  // variational distance (EMD, equal ground distance)
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
