// A node's report: the table of its classes (with the classes that violate a
// per-class constraint suppressed, within max_suppression), its measures, and
// whether it qualifies. Part of GeneralizationLattice (lattice_search.hpp).
#include "search/lattice_search.hpp"
#include "search/class_suppression.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "ck/ck_safety.hpp"
#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

const NodeReport& GeneralizationLattice::report(int64_t node) {
    auto found = reports_.find(node);
    if (found != reports_.end()) return found->second;
    NodeReport r;
    r.levels = levels_of(node);
    auto classes = classes_of(node);
    ++stats_.evaluated;
    const NodeClasses& cl = *classes;
    const std::size_t n = cl.classes(), m = dims_.size();
    const Constraints& q = constraints_;

    // Per-class constraints decide which classes must be suppressed (the release decides alike).
    ClassVerdicts verdicts = violating_classes(cl, sensitive_, q);
    std::vector<char>& keep = verdicts.keep;
    const std::vector<double>&l_of = verdicts.l, &t_of = verdicts.t, &delta_of = verdicts.delta;

    // Suppress the violating classes when the budget allows; else the node keeps them (and fails).
    const double rows = double(rows_);
    r.violating = verdicts.violating;
    const bool within = suppression_within(q.max_suppression, rows_, r.violating);
    if (within) r.suppressed = r.violating;
    else std::fill(keep.begin(), keep.end(), 1);

    // The release after suppression, and its measures.
    // The metric's extra cost of the suppressed rows, one term per class, summed
    // in ascending order: classes are numbered in the order rows arrived.
    std::vector<double> terms;
    int64_t smallest = INT64_MAX;
    for (std::size_t c = 0; c < n; ++c) {
        const double size = double(cl.sizes[c]);
        if (keep[c]) {
            ++r.classes;
            smallest = std::min(smallest, cl.sizes[c]);
            if (!l_of.empty()) r.l = std::min(r.l.value_or(INFINITY), l_of[c]);
            if (!t_of.empty()) r.t = std::max(r.t.value_or(0.0), t_of[c]);
            if (!delta_of.empty()) r.delta = std::max(r.delta.value_or(0.0), delta_of[c]);
            if (metric_ == UtilityMetric::Discernibility) terms.push_back(size * size);
            continue;
        }
        const uint32_t* key = cl.key(c);
        double penalty = 0;
        for (std::size_t j = 0; j < m; ++j) {
            const auto& groups = group_rows_[j][r.levels[j]];
            if (metric_ == UtilityMetric::Loss) {
                // a suppressed row loses everything: 1 per quasi-identifier instead of its generalization's loss
                const auto& codes = group_codes_[j][r.levels[j]];
                double loss = present_[j] > 1 ? double(codes[key[j]] - 1) / double(present_[j] - 1) : 0;
                penalty += size * (1 - loss);
            } else if (metric_ == UtilityMetric::Entropy) {
                penalty += size * std::log2(rows / double(groups[key[j]]));
            } else if (metric_ == UtilityMetric::LevelsKept) {
                penalty += size * double(dims_[j].height() - r.levels[j]) / rows;  // a suppressed row keeps nothing
            }
        }
        if (metric_ == UtilityMetric::Discernibility) penalty += size * rows;
        terms.push_back(penalty);
    }
    std::sort(terms.begin(), terms.end());
    double penalty = 0;
    for (double t : terms) penalty += t;
    const int64_t released = rows_ - r.suppressed;
    if (r.classes > 0) {
        r.k = smallest;
        r.max_risk = 1.0 / double(smallest);
        r.average_risk = double(r.classes) / double(released);
    }
    bool qualifies = within;
    if (q.c && released > 0) {
        ContingencyTable kept = class_table(cl, sensitive_, &keep);
        r.ck = ck_disclosure_curve(kept, q.ck_k)[q.ck_k];
        qualifies = qualifies && strictly_below(*r.ck, *q.c);
    }
    if (q.average_risk && r.average_risk) qualifies = qualifies && !strictly_below(*q.average_risk, *r.average_risk);
    r.safe = qualifies;
    // The utility: the class-free part (the node's bound) plus what suppression costs,
    // in the metric's units; discernibility is all classes.
    const double suppression_cost =
        metric_ == UtilityMetric::Loss ? (rows_ ? penalty / (double(m) * rows) : 0) : penalty;
    switch (metric_) {
        case UtilityMetric::Height:
            r.utility = bound_[node];  // suppression does not change a node's height
            break;
        case UtilityMetric::Discernibility:
            r.utility = penalty;
            break;
        default:
            r.utility = bound_[node] + suppression_cost;
            if (r.safe && r.suppressed > 0) suppressions_.push_back(Suppression{r.levels, suppression_cost});
    }
    tick();
    return reports_.emplace(node, std::move(r)).first->second;
}

}  // namespace privrisk
