#include "search/lattice_search.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <tuple>

#include "ck/ck_safety.hpp"
#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

bool Constraints::monotone() const {
    if (max_suppression <= 0) return true;  // every constraint is monotone on whole classes ([MKMGH07])
    // With suppression, a coarser node suppresses a subset of the rows only when a
    // class qualifies as soon as one of its parts does: true for k, max_risk and
    // distinct ℓ-diversity, not for the others (a qualifying part can be outvoted).
    return !((l && l_kind != LDiversity::Distinct) || t || delta || c || average_risk);
}

namespace {

constexpr std::size_t kCacheEntries = 256;

}  // namespace

GeneralizationLattice::GeneralizationLattice(std::vector<LatticeDimension> dimensions, NodeClasses base,
                                             std::vector<std::optional<std::string>> sensitive, Constraints constraints,
                                             UtilityMetric metric, std::function<void(const SearchStats&)> interrupt,
                                             MemoryBound memory)
    : dims_(std::move(dimensions)),
      sensitive_(std::move(sensitive)),
      constraints_(constraints),
      metric_(metric),
      interrupt_(std::move(interrupt)),
      memory_(std::move(memory)) {
    const std::size_t m = dims_.size();
    if (m == 0 || base.width != m)
        fail(ErrorKind::InvalidParameter, "the lattice needs one dimension per quasi-identifier");
    if (constraints_.needs_histograms() && !base.has_histograms())
        fail(ErrorKind::InvalidParameter, "l, t, delta and c constraints need a sensitive column");
    stride_.assign(m, 1);
    for (std::size_t j = m; j-- > 0;) {
        if (dims_[j].ancestor.empty()) fail(ErrorKind::Internal, "a dimension without levels");
        stride_[j] = nodes_;
        if (__builtin_mul_overflow(nodes_, int64_t(dims_[j].height() + 1), &nodes_) || nodes_ > kMaxNodes)
            fail(ErrorKind::ProgramLimit, "the lattice has more than " + std::to_string(kMaxNodes) +
                                              " nodes; use fewer quasi-identifiers or shorter hierarchies");
    }
    for (int64_t s : base.sizes) rows_ += s;
    base_ = std::make_shared<const NodeClasses>(std::move(base));

    // Rows and level-0 codes under each ancestor, per level.
    group_rows_.resize(m);
    group_codes_.resize(m);
    dimension_cost_.resize(m);
    level_maps_.resize(m);
    for (std::size_t j = 0; j < m; ++j) {
        const auto& anc = dims_[j].ancestor;
        const std::size_t codes = anc[0].size();
        std::vector<int64_t> code_rows(codes, 0);
        for (std::size_t c = 0; c < base_->classes(); ++c) {
            uint32_t code = base_->key(c)[j];
            if (code >= codes) fail(ErrorKind::Internal, "a class code outside its dimension");
            code_rows[code] += base_->sizes[c];
        }
        int64_t present = 0;  // distinct values in the data
        for (int64_t r : code_rows) present += r > 0;
        present_.push_back(present);
        const int levels = dims_[j].height() + 1;
        group_rows_[j].resize(levels);
        group_codes_[j].resize(levels);
        dimension_cost_[j].assign(levels, 0);
        level_maps_[j].resize(std::size_t(levels) * levels);
        for (int l = 0; l < levels; ++l) {
            uint32_t ids = 0;
            for (uint32_t id : anc[l]) ids = std::max(ids, id + 1);
            auto& rows = group_rows_[j][l];
            auto& count = group_codes_[j][l];
            rows.assign(ids, 0);
            count.assign(ids, 0);
            for (std::size_t code = 0; code < codes; ++code) {
                if (code_rows[code] == 0) continue;
                rows[anc[l][code]] += code_rows[code];
                count[anc[l][code]] += 1;
            }
            // Codes number values in the order the rows arrived; the terms are summed
            // in ascending order instead, so the cost is the same bits for any row
            // order, shard count or worker count.
            std::vector<double> terms;
            double cost = 0;
            for (std::size_t code = 0; code < codes; ++code) {
                int64_t r = code_rows[code];
                if (r == 0) continue;
                uint32_t g = anc[l][code];
                switch (metric_) {
                    case UtilityMetric::Loss:
                        if (present > 1) terms.push_back(double(r) * double(count[g] - 1) / double(present - 1));
                        break;
                    case UtilityMetric::Entropy:
                        terms.push_back(double(r) * std::log2(double(rows[g]) / double(r)));
                        break;
                    case UtilityMetric::Height:
                        cost = l;
                        break;
                    case UtilityMetric::LevelsKept:
                        cost = -(dims_[j].height() - l);
                        break;
                    case UtilityMetric::Discernibility:
                        break;
                }
            }
            std::sort(terms.begin(), terms.end());
            for (double t : terms) cost += t;
            dimension_cost_[j][l] = cost;
        }
    }

    // Keys pack into one word when every code fits its share of 64 bits.
    int total_bits = 0;
    for (const auto& d : dims_) {
        int b = 0;
        while ((std::size_t(1) << b) < d.ancestor[0].size()) ++b;
        bits_.push_back(b);
        total_bits += b;
    }
    if (total_bits > 64) bits_.clear();

    check_memory(std::size_t(nodes_) * (sizeof(double) + sizeof(int8_t)));
    bound_.resize(nodes_);
    status_.assign(nodes_, 0);
    compute_bounds();
}

void GeneralizationLattice::compute_bounds() {
    const std::size_t m = dims_.size();
    const double n = double(rows_);
    for (int64_t node = 0; node < nodes_; ++node) {
        auto levels = levels_of(node);
        double b = 0;
        if (metric_ == UtilityMetric::Discernibility) {
            // Σ|E|² ≥ n²/(number of classes) (Cauchy-Schwarz); a suppressed class costs n·|E| ≥ |E|².
            double groups = std::min<double>(n, double(base_->classes()));
            double product = 1;
            for (std::size_t j = 0; j < m; ++j) product *= double(group_rows_[j][levels[j]].size());
            groups = std::min(groups, product);
            if (groups > 0) b = n * n / groups;
            // Every row is in a class of ≥ k rows or suppressed (costing n ≥ k per row).
            if (constraints_.k) b = std::max(b, double(std::min<int64_t>(*constraints_.k, rows_)) * n);
            b *= 1 - 1e-12;
        } else {
            for (std::size_t j = 0; j < m; ++j) b += dimension_cost_[j][levels[j]];
            if (metric_ == UtilityMetric::Loss) b = rows_ ? b / (double(m) * n) : 0;
        }
        bound_[node] = b;
    }
}

std::vector<int> GeneralizationLattice::levels_of(int64_t node) const {
    std::vector<int> levels(dims_.size());
    for (std::size_t j = 0; j < dims_.size(); ++j)
        levels[j] = static_cast<int>(node / stride_[j] % (dims_[j].height() + 1));
    return levels;
}

int GeneralizationLattice::height_of(int64_t node) const {
    auto levels = levels_of(node);
    return std::accumulate(levels.begin(), levels.end(), 0);
}

void GeneralizationLattice::tick() {
    if (interrupt_) interrupt_(stats_);
}

const std::vector<uint32_t>& GeneralizationLattice::level_map(std::size_t j, int from, int to) {
    const auto& anc = dims_[j].ancestor;
    auto& map = level_maps_[j][std::size_t(from) * anc.size() + to];
    if (map.empty()) {
        map.assign(group_rows_[j][from].size(), 0);
        for (std::size_t code = 0; code < anc[0].size(); ++code) map[anc[from][code]] = anc[to][code];
    }
    return map;
}

std::shared_ptr<const NodeClasses> GeneralizationLattice::classes_of(int64_t node) {
    if (node == 0) return base_;
    auto target = levels_of(node);
    // The finest known node below: the one with the fewest classes.
    int64_t from = 0;
    std::shared_ptr<const NodeClasses> source = base_;
    for (const auto& c : cache_) {
        if (c.node == node) return c.classes;
        bool below = true;
        for (std::size_t j = 0; j < target.size() && below; ++j) below = c.levels[j] <= target[j];
        if (below && c.classes->classes() < source->classes()) from = c.node, source = c.classes;
    }
    auto from_levels = levels_of(from);
    stats_.rolled_up += static_cast<int64_t>(source->classes());
    std::vector<const uint32_t*> maps(dims_.size());
    for (std::size_t j = 0; j < dims_.size(); ++j) maps[j] = level_map(j, from_levels[j], target[j]).data();
    auto interrupt = [](void* self) { static_cast<GeneralizationLattice*>(self)->tick(); };
    auto rolled = std::make_shared<const NodeClasses>(
        roll_up(*source, maps, static_cast<uint32_t>(sensitive_.size()), bits_, interrupt, this));
    // The node's classes, and while it is evaluated its per-class measures and (with a
    // sensitive column) up to two contingency tables as large as the classes again.
    const std::size_t evaluation = base_->has_histograms() ? 3 : 2;
    check_memory(rolled->bytes() * evaluation);
    // Keep recent nodes' classes for their generalizations: by default up to twice the
    // level-0 classes and 64 MB, less when the memory bound leaves less once the next
    // evaluation (at most the base's size, thrice) has room; the search then rolls up
    // from farther below: slower, not larger.
    cache_.push_back(Cached{node, target, rolled});
    cache_bytes_ += rolled->bytes();
    const std::size_t held = held_bytes() + base_->bytes() * evaluation;
    const std::size_t left = memory_.left() > held ? memory_.left() - held : 0;
    const std::size_t budget = std::min(2 * base_->bytes() + (std::size_t(64) << 20), left);
    while (!cache_.empty() && (cache_.size() > kCacheEntries || cache_bytes_ > budget)) {
        cache_bytes_ -= cache_.front().classes->bytes();
        cache_.erase(cache_.begin());
    }
    return rolled;
}

std::size_t GeneralizationLattice::held_bytes() const {
    return base_->bytes() + bound_.capacity() * sizeof(double) + status_.capacity() + reports_.size() * kReportBytes;
}

void GeneralizationLattice::check_memory(std::size_t more) const {
    const std::string operation = memory_.operation.empty() ? "search" : memory_.operation;
    memory_.check(held_bytes() + more,
                  operation + ": the level-0 classes (" + std::to_string(base_->classes()) + "), the lattice's " +
                      std::to_string(nodes_) + " nodes and one node's classes",
                  "raise it, or use fewer quasi-identifiers (fewer classes and nodes)");
}

double GeneralizationLattice::suppression_bound(int64_t node) const {
    // With suppression monotone, a coarser qualifying node suppresses a subset of
    // the rows, and each of them costs less there (its generalization already
    // loses more): the node's own suppression costs at least any such node's.
    auto levels = levels_of(node);
    double most = 0;
    for (const auto& s : suppressions_) {
        bool above = true;
        for (std::size_t j = 0; j < levels.size() && above; ++j) above = s.levels[j] >= levels[j];
        if (above) most = std::max(most, s.cost);
    }
    return most * (1 - 1e-12);
}

int64_t GeneralizationLattice::node_of(const std::vector<int>& levels) const {
    if (levels.size() != dims_.size())
        fail(ErrorKind::InvalidParameter, "a node has one level per quasi-identifier (" + std::to_string(dims_.size()) +
                                              "), got " + std::to_string(levels.size()));
    int64_t node = 0;
    for (std::size_t j = 0; j < dims_.size(); ++j) {
        if (levels[j] < 0 || levels[j] > dims_[j].height())
            fail(ErrorKind::InvalidParameter, "level " + std::to_string(levels[j]) + " of " +
                                                  quote_value(dims_[j].name) + " is out of range (0.." +
                                                  std::to_string(dims_[j].height()) + ")");
        node += levels[j] * stride_[j];
    }
    return node;
}

NodeReport GeneralizationLattice::evaluate(const std::vector<int>& levels) { return report(node_of(levels)); }

ContingencyTable GeneralizationLattice::table_at(const std::vector<int>& levels) {
    std::shared_ptr<const NodeClasses> classes = classes_of(node_of(levels));
    // The table copies the classes' histograms and the texts of the sensitive values (with their index).
    std::size_t texts = 0;
    for (const auto& v : sensitive_) texts += (v ? v->size() : 0) + 64;
    check_memory(classes->bytes() + texts);
    return contingency_table(*classes, sensitive_);
}

void GeneralizationLattice::tag(int64_t node, bool safe) {
    // The up-set of a qualifying node qualifies; the down-set of a failing one fails.
    const int8_t mark = safe ? 1 : -1;
    std::vector<int64_t> stack{node};
    status_[node] = mark;
    while (!stack.empty()) {
        int64_t v = stack.back();
        stack.pop_back();
        auto levels = levels_of(v);
        for (std::size_t j = 0; j < dims_.size(); ++j) {
            int64_t w;
            if (safe && levels[j] < dims_[j].height()) w = v + stride_[j];
            else if (!safe && levels[j] > 0) w = v - stride_[j];
            else continue;
            if (status_[w] != 0) continue;
            status_[w] = mark;
            stack.push_back(w);
        }
    }
}

void GeneralizationLattice::classify(int64_t node) {
    // Flash: a path up from the node through unclassified nodes, then a binary
    // search for its lowest qualifying node; each evaluation tags a whole set.
    std::vector<int64_t> path{node};
    for (;;) {
        int64_t v = path.back(), next = -1;
        auto levels = levels_of(v);
        for (std::size_t j = 0; j < dims_.size(); ++j) {
            if (levels[j] == dims_[j].height()) continue;
            int64_t w = v + stride_[j];
            if (status_[w] == 0 && (next < 0 || bound_[w] < bound_[next])) next = w;
        }
        if (next < 0) break;
        path.push_back(next);
    }
    std::size_t lo = 0, hi = path.size();  // path[hi..] qualify (or lie beyond the path)
    while (lo < hi) {
        std::size_t mid = (lo + hi) / 2;
        int64_t v = path[mid];
        if (status_[v] == 0) tag(v, report(v).safe);
        if (status_[v] > 0) hi = mid;
        else lo = mid + 1;
    }
}

SearchResult GeneralizationLattice::search() {
    stats_ = SearchStats{};
    stats_.nodes = nodes_;
    stats_.monotone = constraints_.monotone();
    std::vector<int64_t> order(nodes_);
    std::iota(order.begin(), order.end(), 0);
    std::vector<int> height(nodes_);
    for (int64_t v = 0; v < nodes_; ++v) height[v] = height_of(v);
    auto key = [&](int64_t v, double cost) { return std::make_tuple(cost, height[v], v); };
    std::sort(order.begin(), order.end(), [&](int64_t a, int64_t b) { return key(a, bound_[a]) < key(b, bound_[b]); });
    // Without suppression, the height, loss and entropy of a node need no classes: its bound is its value.
    const bool exact_bound = metric_ != UtilityMetric::Discernibility && constraints_.max_suppression <= 0;

    int64_t best = -1;
    double best_cost = 0;
    for (std::size_t i = 0; i < order.size(); ++i) {
        int64_t v = order[i];
        stats_.considered = static_cast<int64_t>(i) + 1;
        if (best >= 0 && key(v, bound_[v]) > key(best, best_cost)) {
            stats_.considered = nodes_;  // the rest is bounded at once
            stats_.bounded += nodes_ - static_cast<int64_t>(i);
            break;
        }
        double cost;
        if (stats_.monotone) {
            // A node that qualifies suppresses at least what a coarser one does: if even
            // that cannot win, neither can the node, whether it qualifies or not.
            if (!exact_bound && best >= 0 && key(v, bound_[v] + suppression_bound(v)) > key(best, best_cost)) {
                ++stats_.bounded;
                continue;
            }
            if (status_[v] == 0) classify(v);
            if (status_[v] < 0) continue;
            if (exact_bound) {
                cost = bound_[v];
            } else {
                const NodeReport& r = report(v);
                if (!r.safe) continue;
                cost = r.utility;
            }
        } else {
            const NodeReport& r = report(v);
            if (!r.safe) continue;
            cost = r.utility;
        }
        if (best < 0 || key(v, cost) < key(best, best_cost)) best = v, best_cost = cost;
    }
    SearchResult result;
    if (best >= 0) result.best = report(best);
    for (int64_t v = 0; v < nodes_; ++v)
        if (status_[v] != 0 && reports_.find(v) == reports_.end()) ++stats_.tagged;
    result.stats = stats_;
    return result;
}

void GeneralizationLattice::set_constraints(const Constraints& constraints) {
    if (constraints.needs_histograms() && !base_->has_histograms())
        fail(ErrorKind::InvalidParameter, "l, t, delta and c constraints need a sensitive column");
    // What depends on the constraints goes; the cached classes stay (they do not).
    constraints_ = constraints;
    reports_.clear();
    suppressions_.clear();
    status_.assign(nodes_, 0);
    compute_bounds();
}

std::vector<NodeReport> GeneralizationLattice::every_node() {
    stats_ = SearchStats{};
    stats_.nodes = nodes_;
    stats_.monotone = constraints_.monotone();
    // Every node's report, held twice (here and in reports_).
    check_memory(std::size_t(nodes_) * 2 * kReportBytes);
    std::vector<NodeReport> all;
    all.reserve(nodes_);
    for (int64_t v = 0; v < nodes_; ++v) {
        stats_.considered = v + 1;
        all.push_back(report(v));
    }
    return all;
}

}  // namespace privrisk
