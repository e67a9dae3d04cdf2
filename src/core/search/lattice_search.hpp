// Full-domain generalization search (docs/search.md; [MKMGH07]): the lattice
// node (one level per quasi-identifier) with the best utility among those that
// meet every privacy constraint, possibly after suppressing the rows of
// classes that still violate a per-class constraint.
//
// One scan builds the level-0 classes; every node's classes are rolled up from
// the finest cached node below it. Constraints that are monotone (a node that
// qualifies makes every generalization of it qualify) let an evaluation tag
// whole up- or down-sets of the lattice (Incognito / Flash predictive tagging,
// with Flash's binary search along paths); every utility has a lower bound that
// needs no classes, so nodes are visited in bound order and the search stops
// as soon as no unvisited node can beat the best found (branch and bound).
// Constraints that are not monotone only lose the tagging.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/memory_bound.hpp"
#include "hierarchy/hierarchy.hpp"
#include "measures/measure_registry.hpp"
#include "search/node_classes.hpp"

namespace privrisk {

// One quasi-identifier: its distinct level-0 values are codes 0..n-1;
// ancestor[l][code] is the dense id of the code's ancestor at level l
// (ancestor[0] is the identity, ancestor[height] is all 0: ⊥).
struct LatticeDimension {
    std::string name;
    std::vector<std::vector<uint32_t>> ancestor;
    int height() const { return static_cast<int>(ancestor.size()) - 1; }
};

enum class LDiversity { Distinct, Entropy, Recursive };
enum class TCloseness { Equal, Ordered, Hierarchical };

// Thresholds (docs/glossary.md): k, ℓ, max_risk and average_risk are met at the bound
// (a value within 1e-12 relative of it counts as met); δ and (c,k) are strict.
struct Constraints {
    std::optional<int64_t> k;  // every class has ≥ k rows
    std::optional<double> l;   // ℓ-diversity level ≥ l
    LDiversity l_kind = LDiversity::Distinct;
    double l_c = kDefaultLC;  // recursive (c,ℓ)
    std::optional<double> t;  // every class within distance t of the table
    TCloseness t_kind = TCloseness::Equal;
    const Hierarchy* t_hierarchy = nullptr;
    std::optional<double> delta;  // δ-disclosure < delta
    std::optional<double> c;      // (c,k)-safety: MD_ck_k < c
    int ck_k = 1;
    std::optional<double> max_risk;      // max 1/|class| ≤ max_risk
    std::optional<double> average_risk;  // classes / rows ≤ average_risk
    double max_suppression = 0;          // share of rows that may be suppressed

    bool needs_histograms() const { return l || t || delta || c; }
    // Whether "the node qualifies" is upward-closed in the lattice.
    bool monotone() const;
};

// The search minimizes a cost: the metric itself, or for LevelsKept its negation.
enum class UtilityMetric {
    Height,          // Σ levels
    Loss,            // generalization information loss, in [0, 1]
    Discernibility,  // Σ |class|² + |D| · suppressed rows
    Entropy,         // non-uniform entropy, in bits
    LevelsKept       // the papers' record utility Σ(height − level), averaged over the rows (0 when suppressed)
};

struct NodeReport {
    std::vector<int> levels;
    bool safe = false;
    int64_t violating = 0;   // rows of the classes that violate a per-class constraint
    int64_t suppressed = 0;  // of those, suppressed: all when max_suppression allows, else none
    double utility = 0;      // the cost: the metric's value, negated for LevelsKept (after suppression)
    // Measures of the release after suppression (nullopt when not computed or no row is left).
    int64_t classes = 0;
    std::optional<int64_t> k;
    std::optional<double> max_risk, average_risk, l, t, delta, ck;
};

struct SearchStats {
    int64_t nodes = 0;       // in the lattice
    int64_t considered = 0;  // nodes the search has reached in its order (progress: all before are settled)
    int64_t evaluated = 0;   // nodes whose classes were built
    int64_t tagged = 0;      // classified by monotonicity without evaluation
    int64_t bounded = 0;     // never looked at: the utility bound ruled them out
    int64_t rolled_up = 0;   // classes read by roll-ups (the work of the evaluations)
    bool monotone = true;
};

struct SearchResult {
    std::optional<NodeReport> best;
    SearchStats stats;
};

class GeneralizationLattice {
public:
    // `sensitive` names the sensitive values by id (⊥ as nullopt); empty when there is no sensitive column.
    // `interrupt` is called often (after each node, and inside long roll-ups); it may throw to cancel.
    // `memory` bounds what the lattice holds (docs/memory.md): the level-0 classes, the per-node
    // bounds and reports must fit, and the cache of rolled-up classes shrinks to what is left.
    GeneralizationLattice(std::vector<LatticeDimension> dimensions, NodeClasses base,
                          std::vector<std::optional<std::string>> sensitive, Constraints constraints,
                          UtilityMetric metric, std::function<void(const SearchStats&)> interrupt = {},
                          MemoryBound memory = {});

    int64_t nodes() const { return nodes_; }
    int64_t rows() const { return rows_; }
    NodeReport evaluate(const std::vector<int>& levels);
    // A node's classes, none suppressed, as audit()'s table of them: its measures are
    // what audit() reports for the release at that node (search(…, profile)'s verdict).
    ContingencyTable table_at(const std::vector<int>& levels);
    SearchResult search();
    // Other constraints for the next search() or evaluate() (the nearest node when
    // search() found none); what depended on the old ones is dropped, the cached
    // classes are kept.
    void set_constraints(const Constraints& constraints);
    std::vector<NodeReport> every_node();
    const SearchStats& stats() const { return stats_; }  // of the last search() or every_node()
    // What it holds now, besides the cache of rolled-up classes (which gives way to the rest).
    std::size_t held_bytes() const;
    // What one node's report takes, held by the lattice (an estimate, on the high side).
    static constexpr std::size_t kReportBytes = 320;

    // A lower bound of the metric at a node that qualifies, computed without its classes.
    double utility_bound(int64_t node) const { return bound_[node]; }

    static constexpr int64_t kMaxNodes = int64_t(1) << 22;

private:
    std::vector<int> levels_of(int64_t node) const;
    int64_t node_of(const std::vector<int>& levels) const;  // an error for levels out of range
    int height_of(int64_t node) const;
    const NodeReport& report(int64_t node);
    std::shared_ptr<const NodeClasses> classes_of(int64_t node);
    const std::vector<uint32_t>& level_map(std::size_t j, int from, int to);
    void tag(int64_t node, bool safe);
    void classify(int64_t node);
    void tick();
    void compute_bounds();  // bound_, from the metric and the constraints

    std::vector<LatticeDimension> dims_;
    std::vector<int64_t> stride_;
    int64_t nodes_ = 1, rows_ = 0;
    std::shared_ptr<const NodeClasses> base_;
    std::vector<std::optional<std::string>> sensitive_;
    Constraints constraints_;
    UtilityMetric metric_;
    std::function<void(const SearchStats&)> interrupt_;
    SearchStats stats_;

    // Per quasi-identifier and level: rows and level-0 codes under each id.
    std::vector<std::vector<std::vector<int64_t>>> group_rows_, group_codes_;
    std::vector<int> bits_;                            // per quasi-identifier, when keys pack into 64 bits
    std::vector<int64_t> present_;                     // distinct level-0 values in the data
    std::vector<std::vector<double>> dimension_cost_;  // the metric's class-free part, per level
    std::vector<double> bound_;                        // per node
    std::vector<int8_t> status_;                       // per node: 0 unknown, 1 qualifies, -1 does not
    std::unordered_map<int64_t, NodeReport> reports_;
    std::vector<std::vector<std::vector<uint32_t>>> level_maps_;  // [j][from * (H+1) + to]
    struct Cached {
        int64_t node;
        std::vector<int> levels;
        std::shared_ptr<const NodeClasses> classes;
    };
    std::vector<Cached> cache_;  // recent nodes' classes, oldest first
    // Qualifying nodes that suppress rows, with the utility their suppression costs (loss, entropy).
    struct Suppression {
        std::vector<int> levels;
        double cost;
    };
    std::vector<Suppression> suppressions_;
    double suppression_bound(int64_t node) const;
    std::size_t cache_bytes_ = 0;
    MemoryBound memory_;
    void check_memory(std::size_t more) const;
};

}  // namespace privrisk
