#include "measures/measures.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <limits>
#include <numeric>

#include "common/error.hpp"
#include "common/exact_sum.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

void check_threshold(double threshold) {
    if (!(threshold >= 0 && threshold <= 1))
        fail(ErrorKind::InvalidParameter, "threshold must be between 0 and 1, got " + number_text(threshold));
}

void check_c(double c) {
    if (!(c > 0) || !std::isfinite(c))
        fail(ErrorKind::InvalidParameter,
             "c of recursive (c,l)-diversity must be positive and finite, got " + number_text(c));
}

bool strictly_below(double a, double b) {
    if (!(a < b)) return false;
    return std::fabs(b - a) > 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

// ---- identity ---------------------------------------------------------------

std::optional<int64_t> k_anonymity(const ContingencyTable& t) {
    if (t.all().empty()) return std::nullopt;
    int64_t k = std::numeric_limits<int64_t>::max();
    for (const auto& c : t.all()) k = std::min(k, c.size);
    return k;
}

std::optional<double> prosecutor_risk(const ContingencyTable& t) {
    auto k = k_anonymity(t);
    if (!k) return std::nullopt;
    return 1.0 / static_cast<double>(*k);
}

std::optional<double> average_risk(const ContingencyTable& t) {
    if (t.rows() == 0) return std::nullopt;
    return static_cast<double>(t.classes()) / static_cast<double>(t.rows());
}

std::optional<double> records_at_risk(const ContingencyTable& t, double threshold) {
    check_threshold(threshold);
    if (t.rows() == 0) return std::nullopt;
    int64_t at_risk = 0;
    for (const auto& c : t.all())
        if (1.0 / static_cast<double>(c.size) > threshold) at_risk += c.size * c.multiplicity;
    return static_cast<double>(at_risk) / static_cast<double>(t.rows());
}

// ---- ℓ-diversity ------------------------------------------------------------

namespace {

// ln of a count: small counts from a table (the same values std::log gives), as
// classes are mostly small and the measures take millions of these.
double log_count(int64_t c) {
    constexpr int64_t kTable = 4096;
    static const std::vector<double> table = [] {
        std::vector<double> t(kTable);
        for (int64_t i = 1; i < kTable; ++i) t[i] = std::log(static_cast<double>(i));
        return t;
    }();
    return c < kTable ? table[c] : std::log(static_cast<double>(c));
}

double entropy_of(const std::vector<int64_t>& counts, int64_t n) {
    // H = ln n − (1/n) Σ c ln c, in nats
    double s = 0;
    for (int64_t c : counts)
        if (c > 0) s += static_cast<double>(c) * log_count(c);
    double h = log_count(n) - s / static_cast<double>(n);
    return h < 0 ? 0 : h;
}

std::vector<int64_t> counts_of(HistogramView h) {
    std::vector<int64_t> counts;
    h.for_each([&](std::string_view, int64_t c) { counts.push_back(c); });
    if (h.bottom() > 0) counts.push_back(h.bottom());
    return counts;
}

double class_entropy(const ContingencyTable& t, const ContingencyTable::Class& c) {
    double s = 0;
    for (auto& [id, n] : t.counts(c)) s += static_cast<double>(n) * log_count(n);
    double h = log_count(c.size) - s / static_cast<double>(c.size);
    return h < 0 ? 0 : h;
}

double recursive_level(std::vector<int64_t>& r, double c) {
    check_c(c);
    std::sort(r.rbegin(), r.rend());
    // tail(ℓ) = r_ℓ + … + r_m shrinks as ℓ grows, so the satisfied ℓ form a prefix.
    double tail = static_cast<double>(std::accumulate(r.begin(), r.end(), int64_t(0)));
    double best = 1;
    for (std::size_t l = 2; l <= r.size(); ++l) {
        tail -= static_cast<double>(r[l - 2]);
        if (!strictly_below(static_cast<double>(r[0]), c * tail)) break;
        best = static_cast<double>(l);
    }
    return best;
}

// The least level over the classes; each class's level also goes to *per_class when given.
// Every ℓ is at least 1, so once a class has ℓ = 1 (a class of one value) no other can
// lower it: without per_class, the rest are not visited.
template <typename F>
std::optional<double> min_over_classes(const ContingencyTable& t, std::vector<double>* per_class, F&& level) {
    if (per_class) per_class->clear();
    if (t.all().empty()) return std::nullopt;
    double m = std::numeric_limits<double>::infinity();
    for (const auto& c : t.all()) {
        double v = level(c);
        if (per_class) per_class->push_back(v);
        m = std::min(m, v);
        if (m <= 1 && !per_class) break;
    }
    return m;
}

}  // namespace

double class_l_distinct(HistogramView h) { return h.distinct() + (h.bottom() > 0 ? 1 : 0); }

double class_l_entropy(HistogramView h) {
    auto counts = counts_of(h);
    return std::exp(entropy_of(counts, h.size()));
}

double class_l_recursive(HistogramView h, double c) {
    auto counts = counts_of(h);
    return recursive_level(counts, c);
}

std::optional<double> l_distinct(const ContingencyTable& t, std::vector<double>* per_class) {
    return min_over_classes(t, per_class,
                            [&](const ContingencyTable::Class& c) { return static_cast<double>(c.distinct); });
}

std::optional<double> l_entropy(const ContingencyTable& t, std::vector<double>* per_class) {
    return min_over_classes(t, per_class,
                            [&](const ContingencyTable::Class& c) { return std::exp(class_entropy(t, c)); });
}

std::optional<double> l_recursive(const ContingencyTable& t, double c, std::vector<double>* per_class) {
    check_c(c);
    std::vector<int64_t> counts;  // reused for every class
    return min_over_classes(t, per_class, [&](const ContingencyTable::Class& k) {
        counts.clear();
        for (auto& [id, n] : t.counts(k)) counts.push_back(n);
        return recursive_level(counts, c);
    });
}

// ---- t-closeness ------------------------------------------------------------

namespace {

// The largest distance over the classes; each class's also goes to *per_class when given.
// Past an infinite one (δ of a class missing a value) none can raise it.
template <typename F>
std::optional<double> max_over_classes(const ContingencyTable& t, std::vector<double>* per_class, F&& distance) {
    if (per_class) per_class->clear();
    if (t.all().empty()) return std::nullopt;
    double m = 0;
    for (const auto& c : t.all()) {
        double v = distance(c);
        if (per_class) per_class->push_back(v);
        m = std::max(m, v);
        if (std::isinf(m) && !per_class) break;
    }
    return m;
}

// ½ Σ_s |p(T,s) − p(class,s)| over every value of the table, in O(values of the class):
// the values outside the class contribute their table share, taken from exact counts.
double variational(const ContingencyTable& t, const ContingencyTable::Class& c) {
    double n = static_cast<double>(t.rows()), size = static_cast<double>(c.size);
    double inside = 0;
    int64_t base_inside = 0;
    for (auto& [id, cnt] : t.counts(c)) {
        inside += std::fabs(static_cast<double>(t.base()[id]) / n - static_cast<double>(cnt) / size);
        base_inside += t.base()[id];
    }
    return 0.5 * (inside + static_cast<double>(t.rows() - base_inside) / n);
}

// Dense difference vector p(class,·) − p(T,·) by value id.
std::vector<double> difference(const ContingencyTable& t, const ContingencyTable::Class& c) {
    double n = static_cast<double>(t.rows()), size = static_cast<double>(c.size);
    std::vector<double> r(t.distinct());
    for (uint32_t id = 0; id < t.distinct(); ++id) r[id] = -static_cast<double>(t.base()[id]) / n;
    for (auto& [id, cnt] : t.counts(c)) r[id] += static_cast<double>(cnt) / size;
    return r;
}

bool parse_double(const std::string& s, double& out) {
    auto res = std::from_chars(s.data(), s.data() + s.size(), out);
    return res.ec == std::errc() && res.ptr == s.data() + s.size() && std::isfinite(out);
}

}  // namespace

std::optional<double> t_equal(const ContingencyTable& t, std::vector<double>* per_class) {
    return max_over_classes(t, per_class, [&](const ContingencyTable::Class& c) { return variational(t, c); });
}

std::optional<double> t_ordered(const ContingencyTable& t, std::vector<double>* per_class) {
    // Order: numeric if every (non-⊥) value is a number, else bytewise; ⊥ last.
    std::vector<uint32_t> order(t.distinct());
    std::iota(order.begin(), order.end(), 0);
    std::vector<double> number(t.distinct(), 0);
    bool numeric = true;
    for (uint32_t id = 0; id < t.distinct(); ++id)
        if (t.values()[id] && !parse_double(*t.values()[id], number[id])) numeric = false;
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const auto &va = t.values()[a], &vb = t.values()[b];
        if (!va || !vb) return va.has_value() && !vb.has_value();
        if (numeric && number[a] != number[b]) return number[a] < number[b];
        return *va < *vb;
    });
    double m = static_cast<double>(t.distinct());
    return max_over_classes(t, per_class, [&](const ContingencyTable::Class& c) {
        if (m < 2) return 0.0;
        std::vector<double> r = difference(t, c);
        double cumulative = 0, sum = 0;
        for (uint32_t id : order) {
            cumulative += r[id];
            sum += std::fabs(cumulative);
        }
        return sum / (m - 1);
    });
}

std::optional<double> t_hierarchical(const ContingencyTable& t, const Hierarchy& h, std::vector<double>* per_class) {
    const int height = h.height();
    // node[level][value id]: the id of the value's ancestor at levels 1..height-1, interned per level;
    // ⊥ gets a node of its own on every level, so it meets the other values only at the root.
    std::vector<std::vector<uint32_t>> node(height);
    std::vector<uint32_t> nodes_at(height, 0);
    for (int level = 1; level < height; ++level) {
        std::unordered_map<std::string, uint32_t> ids;
        node[level].resize(t.distinct());
        for (uint32_t id = 0; id < t.distinct(); ++id) {
            std::string key = "\x01";  // ⊥'s own node
            if (t.values()[id]) {
                const std::string& v = *t.values()[id];
                if (level == 1 && h.level_of(v) != 0)
                    fail(ErrorKind::InvalidParameter,
                         "sensitive value " + quote_value(v) + " is not a leaf of hierarchy " + quote_value(h.name()));
                std::string scratch;
                Value a = h.generalize(v, level, scratch);
                key = "\x02" + std::string(*a);
            }
            node[level][id] = ids.try_emplace(key, static_cast<uint32_t>(ids.size())).first->second;
        }
        nodes_at[level] = static_cast<uint32_t>(ids.size());
    }
    if (height == 1)  // only leaves and the root: still check the values are in the hierarchy
        for (uint32_t id = 0; id < t.distinct(); ++id)
            if (t.values()[id] && h.level_of(*t.values()[id]) != 0)
                fail(ErrorKind::InvalidParameter, "sensitive value " + quote_value(*t.values()[id]) +
                                                      " is not a leaf of hierarchy " + quote_value(h.name()));
    // up[level][child]: the parent at `level` of a node at level-1 (value ids at level 0).
    std::vector<std::vector<uint32_t>> up(height + 1);
    for (int level = 1; level <= height; ++level) {
        uint32_t children = level == 1 ? t.distinct() : nodes_at[level - 1];
        up[level].assign(children, 0);
        if (level == height) continue;  // everything meets at the root
        for (uint32_t id = 0; id < t.distinct(); ++id)
            up[level][level == 1 ? id : node[level - 1][id]] = node[level][id];
    }
    return max_over_classes(t, per_class, [&](const ContingencyTable::Class& c) {
        std::vector<double> extra = difference(t, c);  // extra of each child, starting with the leaves (Li et al. §4.3)
        double cost = 0;
        for (int level = 1; level <= height; ++level) {
            // Children at level-1 (leaves first: value ids), parents at `level` (the root at height).
            uint32_t parents = level == height ? 1 : nodes_at[level];
            std::vector<double> pos(parents, 0), neg(parents, 0), next(parents, 0);
            for (uint32_t child = 0; child < extra.size(); ++child) {
                uint32_t parent = up[level][child];
                (extra[child] > 0 ? pos : neg)[parent] += std::fabs(extra[child]);
                next[parent] += extra[child];
            }
            for (uint32_t p = 0; p < parents; ++p)
                cost += static_cast<double>(level) / height * std::min(pos[p], neg[p]);
            extra.swap(next);
        }
        return cost;
    });
}

}  // namespace privrisk

// ---- Brickell-Shmatikov -----------------------------------------------------

namespace privrisk {

std::optional<double> delta_disclosure(const ContingencyTable& t, std::vector<double>* per_class) {
    const double log_n = log_count(t.rows());
    return max_over_classes(t, per_class, [&](const ContingencyTable::Class& c) {
        if (c.distinct < t.distinct()) return std::numeric_limits<double>::infinity();
        double worst = 0, log_size = log_count(c.size);
        for (auto& [id, cnt] : t.counts(c))  // |ln(p(class,s) / p(T,s))| as a sum of logs of counts
            worst = std::max(worst, std::fabs((log_count(cnt) + log_n) - (log_count(t.base()[id]) + log_size)));
        return worst;
    });
}

std::optional<double> a_know(const ContingencyTable& t) {
    if (t.rows() == 0) return std::nullopt;
    ExactSum<64> sum;  // Σ |q| · distance ≤ n < 2^63
    for (const auto& c : t.all()) sum.add(static_cast<double>(c.size) * variational(t, c), c.multiplicity);
    return static_cast<double>(sum.value() / static_cast<long double>(t.rows()));
}

std::optional<double> a_acc(const ContingencyTable& t) {
    if (t.rows() == 0) return std::nullopt;
    int64_t majority = 0;
    for (const auto& c : t.all()) {
        int64_t m = 0;
        for (auto& [id, cnt] : t.counts(c)) m = std::max(m, cnt);
        majority += m * c.multiplicity;
    }
    int64_t base_max = *std::max_element(t.base().begin(), t.base().end());
    return static_cast<double>(majority - base_max) / static_cast<double>(t.rows());
}

std::optional<double> information_gain(const ContingencyTable& t) {
    if (t.rows() == 0) return std::nullopt;
    double n = static_cast<double>(t.rows());
    ExactSum<56> conditional;  // Σ |q| · H(q) ≤ n ln n < 2^69
    for (const auto& c : t.all()) conditional.add(static_cast<double>(c.size) * class_entropy(t, c), c.multiplicity);
    double gain =
        static_cast<double>(entropy_of(t.base(), t.rows()) - conditional.value() / static_cast<long double>(n));
    return gain < 0 ? 0 : gain;
}

}  // namespace privrisk
