#include "information/information.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <string>
#include <unordered_map>

#include "common/error.hpp"
#include "common/exact_sum.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

double entropy_nats(const std::vector<int64_t>& counts) {
    int64_t n = 0;
    ExactSum<64> s;  // Σ c ln c, the same bits in any order of the counts
    for (int64_t c : counts)
        if (c > 0) {
            n += c;
            s.add(double(c) * std::log(double(c)));
        }
    if (n == 0) return 0;
    double h = std::log(double(n)) - static_cast<double>(s.value() / static_cast<long double>(n));
    return h < 0 ? 0 : h;
}

namespace {

double xlog2x(double x) { return x > 0 ? x * std::log2(x) : 0; }

void check_distribution(const std::vector<double>& v, const std::string& what) {
    double sum = 0;
    for (std::size_t i = 0; i < v.size(); ++i) {
        if (!std::isfinite(v[i]) || v[i] < 0)
            fail(ErrorKind::InvalidParameter, what + " entry " + std::to_string(i + 1) + " is " + number_text(v[i]) +
                                                  "; probabilities are finite and ≥ 0");
        sum += v[i];
    }
    if (std::fabs(sum - 1) > kStochasticTolerance)
        fail(ErrorKind::InvalidParameter, what + " sums to " + number_text(sum) + ", not 1 (tolerance 1e-9)");
}

}  // namespace

// ---- channels ---------------------------------------------------------------

Channel Channel::from_rows(const std::vector<std::vector<double>>& rows) {
    if (rows.empty() || rows[0].empty())
        fail(ErrorKind::InvalidParameter, "a channel needs at least one input and one output");
    Channel c;
    c.inputs_ = rows.size();
    c.outputs_ = rows[0].size();
    for (std::size_t i = 0; i < rows.size(); ++i) {
        if (rows[i].size() != c.outputs_)
            fail(ErrorKind::InvalidParameter, "channel row " + std::to_string(i + 1) + " has " +
                                                  std::to_string(rows[i].size()) + " entries, row 1 has " +
                                                  std::to_string(c.outputs_));
        check_distribution(rows[i], "channel row " + std::to_string(i + 1));
        c.p_.insert(c.p_.end(), rows[i].begin(), rows[i].end());
    }
    return c;
}

std::vector<double> Channel::prior(const std::vector<double>& given) const {
    if (given.empty()) return std::vector<double>(inputs_, 1.0 / double(inputs_));
    if (given.size() != inputs_)
        fail(ErrorKind::InvalidParameter, "the prior has " + std::to_string(given.size()) + " entries, the channel " +
                                              std::to_string(inputs_) + " inputs");
    check_distribution(given, "the prior");
    return given;
}

ChannelMetrics channel_metrics(const Channel& channel, const std::vector<double>& prior) {
    const std::size_t n = channel.inputs(), m = channel.outputs();
    ChannelMetrics r{};
    r.guess.assign(m, std::nullopt);
    double success = 0, h_joint = 0, h_output = 0, h_input = 0;
    for (std::size_t i = 0; i < n; ++i) h_input -= xlog2x(prior[i]);
    for (std::size_t j = 0; j < m; ++j) {
        double column = 0, best = 0;
        for (std::size_t i = 0; i < n; ++i) {
            double joint = prior[i] * channel.at(i, j);
            column += joint;
            h_joint -= xlog2x(joint);
            if (joint > best) best = joint, r.guess[j] = i;  // ties keep the smallest input
        }
        success += best;
        h_output -= xlog2x(column);
    }
    r.bayes_error = std::max(0.0, 1 - success);
    r.input_entropy = h_input;
    r.output_entropy = h_output;
    r.conditional_entropy = std::max(0.0, h_joint - h_output);
    r.mutual_information = std::max(0.0, h_input - r.conditional_entropy);
    r.error_bound = 1 - std::exp2(-r.conditional_entropy);
    return r;
}

AdversaryErrors adversary_errors(const Channel& channel, const std::vector<double>& prior) {
    AdversaryErrors e{};
    const std::size_t n = channel.inputs();
    e.neither = 1 - 1.0 / double(n);
    e.prior_only = 1 - *std::max_element(prior.begin(), prior.end());
    e.mechanism_only = channel_metrics(channel, std::vector<double>(n, 1.0 / double(n))).bayes_error;
    e.both = channel_metrics(channel, prior).bayes_error;
    return e;
}

namespace {

// Solves A x = b (A square, row-major) by Gaussian elimination with partial pivoting; false if singular.
bool solve(std::vector<double> a, std::vector<double> b, std::size_t n, std::vector<double>& x) {
    for (std::size_t c = 0; c < n; ++c) {
        std::size_t pivot = c;
        for (std::size_t r = c + 1; r < n; ++r)
            if (std::fabs(a[r * n + c]) > std::fabs(a[pivot * n + c])) pivot = r;
        if (std::fabs(a[pivot * n + c]) < 1e-12) return false;
        if (pivot != c) {
            for (std::size_t k = 0; k < n; ++k) std::swap(a[c * n + k], a[pivot * n + k]);
            std::swap(b[c], b[pivot]);
        }
        for (std::size_t r = 0; r < n; ++r) {
            if (r == c || a[r * n + c] == 0) continue;
            double f = a[r * n + c] / a[c * n + c];
            for (std::size_t k = c; k < n; ++k) a[r * n + k] -= f * a[c * n + k];
            b[r] -= f * b[c];
        }
    }
    x.resize(n);
    for (std::size_t i = 0; i < n; ++i) x[i] = b[i] / a[i * n + i];
    return true;
}

}  // namespace

WorstPrior worst_case_prior(const Channel& channel) {
    const std::size_t n = channel.inputs(), m = channel.outputs();
    auto error_at = [&](const std::vector<double>& prior) { return channel_metrics(channel, prior).bayes_error; };
    if (n == 1) return WorstPrior{error_at({1.0}), {1.0}};
    // The error is concave and piecewise linear in the prior: its maximum over the
    // simplex is at a vertex of the cells where one input wins each column.
    std::vector<std::vector<double>> planes;
    for (std::size_t j = 0; j < m; ++j)
        for (std::size_t i = 0; i < n; ++i)
            for (std::size_t k = i + 1; k < n; ++k) {
                if (channel.at(i, j) == 0 && channel.at(k, j) == 0) continue;
                std::vector<double> v(n, 0);
                v[i] = channel.at(i, j);
                v[k] = -channel.at(k, j);
                planes.push_back(v);
            }
    for (std::size_t i = 0; i < n; ++i) {
        std::vector<double> v(n, 0);
        v[i] = 1;
        planes.push_back(v);
    }
    // Candidate vertices: C(planes, n - 1), counted before any work.
    const std::size_t h = planes.size(), choose = n - 1;
    double combos = 1;
    for (std::size_t i = 0; i < choose; ++i) combos = combos * double(h - i) / double(i + 1);
    if (choose > h || combos > double(kMaxPriorVertices))
        fail(ErrorKind::ProgramLimit, "the worst-case prior of a " + std::to_string(n) + " x " + std::to_string(m) +
                                          " channel needs " + number_text(std::floor(combos)) +
                                          " candidate vertices; the limit is " + std::to_string(kMaxPriorVertices));
    WorstPrior best{-1, {}};
    std::vector<std::size_t> pick(choose);
    std::iota(pick.begin(), pick.end(), 0);
    std::vector<double> a(n * n), b(n, 0), x;
    for (;;) {
        for (std::size_t r = 0; r < choose; ++r)
            std::copy(planes[pick[r]].begin(), planes[pick[r]].end(), a.begin() + r * n);
        std::fill(a.begin() + choose * n, a.end(), 1.0);  // Σ π = 1
        std::fill(b.begin(), b.end(), 0.0);
        b[n - 1] = 1;
        if (solve(a, b, n, x) && *std::min_element(x.begin(), x.end()) >= -1e-12) {
            for (double& v : x) v = std::max(v, 0.0);
            double e = error_at(x);
            if (e > best.bayes_error + 1e-15) best = WorstPrior{e, x};
        }
        // next combination
        std::size_t i = choose;
        while (i > 0 && pick[i - 1] == h - choose + i - 1) --i;
        if (i == 0) break;
        ++pick[i - 1];
        for (std::size_t k = i; k < choose; ++k) pick[k] = pick[k - 1] + 1;
    }
    return best;
}

// ---- utility of a table -------------------------------------------------------

namespace {

// H (bits) of the rows projected on the attributes where keep[a] is true.
double projection_entropy(const std::vector<std::vector<uint32_t>>& rows, const std::vector<char>& keep) {
    std::unordered_map<std::string, int64_t> counts;
    std::string key;
    for (const auto& row : rows) {
        key.clear();
        for (std::size_t a = 0; a < row.size(); ++a)
            if (keep[a]) key.append(reinterpret_cast<const char*>(&row[a]), sizeof row[a]);
        ++counts[key];
    }
    std::vector<int64_t> c;
    c.reserve(counts.size());
    for (const auto& kv : counts) c.push_back(kv.second);
    std::sort(c.begin(), c.end());  // one summation order, whatever the hash order
    return entropy_nats(c) / kNatsPerBit;
}

}  // namespace

TableUtility table_utility(const std::vector<std::vector<uint32_t>>& rows, const std::vector<double>& domain,
                           const std::vector<double>& weights) {
    const std::size_t p = domain.size();
    if (p == 0) fail(ErrorKind::InvalidParameter, "utility needs at least one attribute");
    for (std::size_t a = 0; a < p; ++a)
        if (!(domain[a] >= 1) || !std::isfinite(domain[a]))
            fail(ErrorKind::InvalidParameter, "the domain size of attribute " + std::to_string(a + 1) + " is " +
                                                  number_text(domain[a]) + "; it must be at least 1");
    std::vector<double> w = weights.empty() ? std::vector<double>(p, 1.0 / double(p)) : weights;
    if (w.size() != p)
        fail(ErrorKind::InvalidParameter,
             "weights has " + std::to_string(w.size()) + " entries, for " + std::to_string(p) + " attributes");
    check_distribution(w, "the attribute weights");
    for (const auto& row : rows)
        if (row.size() != p) fail(ErrorKind::InvalidParameter, "a row has the wrong number of attributes");
    TableUtility t{0, {}};
    std::vector<char> all(p, 1);
    const double h_all = projection_entropy(rows, all);
    for (std::size_t a = 0; a < p; ++a) {
        std::vector<char> rest(p, 1), only(p, 0);
        rest[a] = 0;
        only[a] = 1;
        AttributeUtility u{};
        u.h_max = std::log2(domain[a]);
        u.entropy = projection_entropy(rows, only);
        u.conditional = std::max(0.0, h_all - projection_entropy(rows, rest));
        u.u1 = u.h_max - u.entropy;
        u.u_max = u.h_max - u.conditional;
        t.utility += w[a] * u.u_max;
        t.attributes.push_back(u);
    }
    return t;
}

// ---- the k-anonymity channel --------------------------------------------------

namespace {

// The level vectors of a universe's tables: quasi-identifiers over their levels, the others at 0.
std::vector<std::vector<int>> universe_nodes(const std::vector<UniverseAttribute>& attributes) {
    std::vector<std::vector<int>> nodes{{}};
    for (const UniverseAttribute& attribute : attributes) {
        int top = attribute.quasi_identifier ? static_cast<int>(attribute.levels.size()) - 1 : 0;
        std::vector<std::vector<int>> next;
        for (const auto& prefix : nodes)
            for (int l = 0; l <= top; ++l) {
                auto n = prefix;
                n.push_back(l);
                next.push_back(n);
            }
        nodes.swap(next);
    }
    return nodes;
}

// The minimal mechanism's order of the nodes: least Σ levels, then smallest levels in attribute order.
std::vector<std::size_t> minimal_order(const std::vector<std::vector<int>>& nodes) {
    std::vector<std::size_t> order(nodes.size());
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
        int sx = std::accumulate(nodes[x].begin(), nodes[x].end(), 0),
            sy = std::accumulate(nodes[y].begin(), nodes[y].end(), 0);
        return sx != sy ? sx < sy : nodes[x] < nodes[y];
    });
    return order;
}

}  // namespace

UniverseChannel k_anonymity_channel(const std::vector<UniverseAttribute>& attributes, int rows, int k,
                                    KAnonymityMechanism mechanism) {
    const std::size_t p = attributes.size();
    if (p == 0) fail(ErrorKind::InvalidParameter, "the universe needs at least one attribute");
    if (rows < 1) fail(ErrorKind::InvalidParameter, "rows must be at least 1, got " + std::to_string(rows));
    if (k < 1) fail(ErrorKind::InvalidParameter, "k must be at least 1, got " + std::to_string(k));
    if (k > rows)
        fail(ErrorKind::InvalidParameter, "no table of " + std::to_string(rows) + " rows is " + std::to_string(k) +
                                              "-anonymous: k exceeds the rows");
    // Each attribute's level sizes; the row domain D; N_in = C(D + r − 1, r) (eq 21), bounded.
    std::vector<std::vector<uint32_t>> size(p);  // size[a][l]
    uint64_t domain = 1;
    for (std::size_t a = 0; a < p; ++a) {
        const auto& lv = attributes[a].levels;
        if (lv.empty() || lv[0].empty())
            fail(ErrorKind::InvalidParameter, "attribute " + quote_value(attributes[a].name) + " has no values");
        for (const auto& level : lv) {
            if (level.size() != lv[0].size()) fail(ErrorKind::Internal, "a level of the wrong width");
            size[a].push_back(*std::max_element(level.begin(), level.end()) + 1);
        }
        domain *= lv[0].size();
        if (domain > kMaxUniverseInputs)
            fail(ErrorKind::ProgramLimit, "the universe's row domain exceeds " + std::to_string(kMaxUniverseInputs));
    }
    double inputs = 1;  // C(D + r − 1, r), as a double to test the limit
    for (int i = 1; i <= rows; ++i) inputs = inputs * double(domain + i - 1) / double(i);
    if (inputs > double(kMaxUniverseInputs) + 0.5)
        fail(ErrorKind::ProgramLimit, "the universe has " + number_text(std::round(inputs)) + " input tables (" +
                                          std::to_string(rows) + " rows over " + std::to_string(domain) +
                                          " row values); the limit is " + std::to_string(kMaxUniverseInputs));
    const std::vector<std::vector<int>> nodes = universe_nodes(attributes);
    const std::vector<std::size_t> order = minimal_order(nodes);
    // Ground values of each row code (mixed radix, first attribute most significant).
    std::vector<std::vector<uint32_t>> ground(domain, std::vector<uint32_t>(p));
    for (uint64_t code = 0; code < domain; ++code) {
        uint64_t rest = code;
        for (std::size_t a = p; a-- > 0;) {
            ground[code][a] = static_cast<uint32_t>(rest % attributes[a].levels[0].size());
            rest /= attributes[a].levels[0].size();
        }
    }
    std::vector<double> ground_domain(p);
    for (std::size_t a = 0; a < p; ++a) ground_domain[a] = attributes[a].levels[0].size();

    struct Column {
        double max = 0, sum = 0;
    };
    std::unordered_map<std::string, Column> columns;
    UniverseChannel u;
    const double n_in = std::round(inputs);
    u.inputs = static_cast<uint64_t>(n_in);
    double h_joint = 0, degradation = 0;
    std::vector<uint64_t> table(rows, 0);  // a multiset: non-decreasing row codes
    std::vector<std::vector<uint32_t>> generalized(rows, std::vector<uint32_t>(p)), original(rows);
    std::vector<std::size_t> feasible;
    std::string key;
    for (;;) {
        for (int i = 0; i < rows; ++i) original[i] = ground[table[i]];
        feasible.clear();
        for (std::size_t idx : order) {
            const auto& node = nodes[idx];
            std::map<std::vector<uint32_t>, int> quasi;
            for (int i = 0; i < rows; ++i) {
                std::vector<uint32_t> q;
                for (std::size_t a = 0; a < p; ++a)
                    if (attributes[a].quasi_identifier) q.push_back(attributes[a].levels[node[a]][original[i][a]]);
                ++quasi[q];
            }
            bool anonymous = true;
            for (const auto& kv : quasi) anonymous = anonymous && kv.second >= k;
            if (anonymous) feasible.push_back(idx);
        }
        ++u.feasible_nodes[static_cast<int>(feasible.size())];
        if (mechanism == KAnonymityMechanism::Minimal) feasible.resize(1);  // `order` put the minimal node first
        const double prob = 1.0 / double(feasible.size());
        const double base = table_utility(original, ground_domain, {}).utility;
        for (std::size_t idx : feasible) {
            const auto& node = nodes[idx];
            std::vector<double> published(p);
            for (int i = 0; i < rows; ++i)
                for (std::size_t a = 0; a < p; ++a) generalized[i][a] = attributes[a].levels[node[a]][original[i][a]];
            for (std::size_t a = 0; a < p; ++a) published[a] = size[a][node[a]];
            // The released table: its node, then its rows in canonical order.
            std::vector<std::vector<uint32_t>> sorted = generalized;
            std::sort(sorted.begin(), sorted.end());
            key.assign(reinterpret_cast<const char*>(&idx), sizeof idx);
            for (const auto& r : sorted)
                key.append(reinterpret_cast<const char*>(r.data()), r.size() * sizeof(uint32_t));
            Column& c = columns[key];
            c.max = std::max(c.max, prob);
            c.sum += prob;
            h_joint -= xlog2x(prob / n_in);
            degradation += prob / n_in * (base - table_utility(generalized, published, {}).utility);
        }
        // next multiset
        int i = rows - 1;
        while (i >= 0 && table[i] == domain - 1) --i;
        if (i < 0) break;
        ++table[i];
        for (int j = i + 1; j < rows; ++j) table[j] = table[i];
    }
    double h_output = 0;
    std::vector<double> maxima, sums;
    for (const auto& kv : columns) {
        maxima.push_back(kv.second.max);
        sums.push_back(kv.second.sum);
    }
    std::sort(maxima.begin(), maxima.end());  // one summation order
    std::sort(sums.begin(), sums.end());
    for (double s : sums) h_output -= xlog2x(s / n_in);
    u.outputs = columns.size();
    u.sum_of_column_maxima = std::accumulate(maxima.begin(), maxima.end(), 0.0);
    u.bayes_error = 1 - u.sum_of_column_maxima / n_in;
    u.conditional_entropy = std::max(0.0, h_joint - h_output);
    u.error_bound = 1 - std::exp2(-u.conditional_entropy);
    u.utility_degradation = degradation;
    return u;
}

}  // namespace privrisk
