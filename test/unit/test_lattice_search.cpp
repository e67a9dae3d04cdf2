// The generalization search against exhaustive evaluation: random small
// tables, hierarchies and constraints; every node's classes and measures are
// recomputed from the rows by a plain reference (no roll-up, no pruning).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <random>
#include <set>

#include "ck/ck_safety.hpp"
#include "hierarchy/csv.hpp"
#include "hierarchy/hierarchy.hpp"
#include "search/lattice_search.hpp"
#include "test_support.hpp"

using namespace privrisk;

namespace {

// Classes by their key, each with its size and its (value, count) pairs: the same in
// whatever order a builder or roll-up numbered them.
std::map<std::vector<uint32_t>, std::pair<int64_t, std::vector<ContingencyTable::Pair>>> by_key(const NodeClasses& c) {
    std::map<std::vector<uint32_t>, std::pair<int64_t, std::vector<ContingencyTable::Pair>>> m;
    for (std::size_t i = 0; i < c.classes(); ++i) {
        std::vector<ContingencyTable::Pair> pairs;
        if (c.has_histograms()) pairs.assign(c.pairs.begin() + c.first[i], c.pairs.begin() + c.first[i + 1]);
        m[std::vector<uint32_t>(c.key(i), c.key(i) + c.width)] = {c.sizes[i], pairs};
    }
    return m;
}

// The sensitive values' hierarchy for hierarchical t-closeness: v0, v1 -> g0; v2, v3 -> g1; -> *.
const Hierarchy& sensitive_hierarchy() {
    static const auto h = make_tree_hierarchy("sensitive", parse_csv("v0;g0;*\nv1;g0;*\nv2;g1;*\nv3;g1;*", ";"));
    return *h;
}

struct Instance {
    std::vector<LatticeDimension> dims;
    std::vector<std::vector<uint32_t>> rows;  // codes per row
    std::vector<uint32_t> sensitive;          // value id per row
    std::vector<std::optional<std::string>> values;
    Constraints q;
    UtilityMetric metric = UtilityMetric::Loss;
};

Instance random_instance(std::mt19937_64& rng) {
    auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    Instance in;
    int m = pick(1, 3);
    for (int j = 0; j < m; ++j) {
        LatticeDimension d;
        d.name = "q" + std::to_string(j);
        int codes = pick(1, 6), height = pick(0, 3);
        std::vector<uint32_t> level(codes);
        for (int c = 0; c < codes; ++c) level[c] = c;
        d.ancestor.push_back(level);
        uint32_t ids = codes;
        for (int l = 1; l <= height; ++l) {
            // nest: each id of the level below gets a parent among fewer ids
            uint32_t parents = l == height ? 1 : std::max<uint32_t>(1, (ids + 1) / 2);
            std::vector<uint32_t> parent_of(ids);
            for (auto& p : parent_of) p = pick(0, parents - 1);
            std::vector<uint32_t> dense(parents, UINT32_MAX);  // ids dense per level
            uint32_t next = 0;
            for (auto& x : level) {
                uint32_t p = parent_of[x];
                if (dense[p] == UINT32_MAX) dense[p] = next++;
                x = dense[p];
            }
            d.ancestor.push_back(level);
            ids = next;
        }
        in.dims.push_back(d);
    }
    int n = pick(0, 40), s = pick(1, 4);
    std::vector<int> used(s + 1, -1);
    for (int r = 0; r < n; ++r) {
        std::vector<uint32_t> row;
        for (auto& d : in.dims) row.push_back(pick(0, static_cast<int>(d.ancestor[0].size()) - 1));
        in.rows.push_back(row);
        int v = pick(0, s);  // s: ⊥
        if (used[v] < 0) {
            used[v] = static_cast<int>(in.values.size());
            in.values.push_back(v == s ? std::nullopt : std::optional<std::string>("v" + std::to_string(v)));
        }
        in.sensitive.push_back(used[v]);
    }
    auto maybe = [&] { return pick(0, 2) == 0; };
    if (maybe()) in.q.k = pick(1, 5);
    if (maybe()) {
        in.q.l = std::vector<double>{1.5, 2, 3}[pick(0, 2)];
        in.q.l_kind = static_cast<LDiversity>(pick(0, 2));
        in.q.l_c = pick(1, 3);
    }
    if (maybe()) {
        in.q.t = std::vector<double>{0.1, 0.3, 0.5}[pick(0, 2)];
        in.q.t_kind = static_cast<TCloseness>(pick(0, 2));
        in.q.t_hierarchy = &sensitive_hierarchy();
    }
    if (maybe()) in.q.delta = std::vector<double>{0.5, 1, 2}[pick(0, 2)];
    if (maybe()) {
        in.q.c = std::vector<double>{0.5, 0.7, 0.9}[pick(0, 2)];
        in.q.ck_k = pick(0, 2);
    }
    if (maybe()) in.q.max_risk = std::vector<double>{0.25, 0.5}[pick(0, 1)];
    if (maybe()) in.q.average_risk = std::vector<double>{0.3, 0.6}[pick(0, 1)];
    in.q.max_suppression = std::vector<double>{0, 0, 0.1, 0.3}[pick(0, 3)];
    in.metric = static_cast<UtilityMetric>(pick(0, 4));
    return in;
}

NodeClasses base_of(const Instance& in) {
    bool histograms = in.q.needs_histograms() || !in.values.empty();
    BaseClassBuilder b(in.dims.size(), histograms);
    for (std::size_t r = 0; r < in.rows.size(); ++r) b.add(in.rows[r].data(), in.sensitive[r]);
    return b.finish();
}

GeneralizationLattice build(const Instance& in, MemoryBound memory = {}) {
    return GeneralizationLattice(in.dims, base_of(in), in.values, in.q, in.metric, {}, memory);
}

// The reference: one node, from the rows.
struct Reference {
    bool safe;
    int64_t violating, suppressed;
    double utility;
};

Reference reference(const Instance& in, const std::vector<int>& levels) {
    const std::size_t m = in.dims.size(), n = in.rows.size();
    const double rows = double(n);
    auto gen = [&](std::size_t r, std::size_t j, int l) { return in.dims[j].ancestor[l][in.rows[r][j]]; };
    std::map<std::vector<uint32_t>, std::vector<std::size_t>> classes;
    for (std::size_t r = 0; r < n; ++r) {
        std::vector<uint32_t> key;
        for (std::size_t j = 0; j < m; ++j) key.push_back(gen(r, j, levels[j]));
        classes[key].push_back(r);
    }
    // The table's sensitive distribution and the values' order (bytewise, ⊥ last).
    std::map<uint32_t, int64_t> table;
    for (uint32_t s : in.sensitive) ++table[s];
    std::vector<uint32_t> order;
    for (auto& [s, c] : table) order.push_back(s);
    std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        const auto &va = in.values[a], &vb = in.values[b];
        if (!va || !vb) return va.has_value() && !vb.has_value();
        return *va < *vb;
    });
    const Constraints& q = in.q;
    Reference ref{true, 0, 0, 0};
    std::vector<std::pair<const std::vector<std::size_t>*, bool>> kept;
    for (auto& [key, members] : classes) {
        std::map<uint32_t, int64_t> h;
        for (std::size_t r : members) ++h[in.sensitive[r]];
        double size = double(members.size());
        bool keep = true;
        if (q.k && int64_t(members.size()) < *q.k) keep = false;
        if (q.max_risk && strictly_below(*q.max_risk, 1 / size)) keep = false;
        if (q.l) {
            std::vector<int64_t> counts;
            for (auto& [s, c] : h) counts.push_back(c);
            std::sort(counts.rbegin(), counts.rend());
            double level = 0;
            if (q.l_kind == LDiversity::Distinct) level = double(counts.size());
            if (q.l_kind == LDiversity::Entropy) {
                double e = 0;
                for (int64_t c : counts) e -= c / size * std::log(c / size);
                level = std::exp(e);
            }
            if (q.l_kind == LDiversity::Recursive) {
                level = 1;
                for (std::size_t l = 2; l <= counts.size(); ++l) {
                    double tail = 0;
                    for (std::size_t i = l - 1; i < counts.size(); ++i) tail += double(counts[i]);
                    if (!strictly_below(double(counts[0]), q.l_c * tail)) break;
                    level = double(l);
                }
            }
            if (strictly_below(level, *q.l)) keep = false;
        }
        if (q.t) {
            double d = 0;
            if (q.t_kind == TCloseness::Equal) {
                for (auto& [s, c] : table) d += std::fabs(double(h[s]) / size - double(c) / rows) / 2;
            } else if (q.t_kind == TCloseness::Hierarchical) {
                // Li et al. §4.3 on the two-level tree: each group moves min(pos, neg) at cost 1/2,
                // the root min(pos, neg) of the groups' extras at cost 1; ⊥ is a group of its own.
                double extra_of[3] = {0, 0, 0}, pos[3] = {0, 0, 0}, neg[3] = {0, 0, 0};
                for (auto& [s, c] : table) {
                    double e = double(h[s]) / size - double(c) / rows;
                    const auto& v = in.values[s];
                    int g = !v ? 2 : ((*v)[1] - '0') / 2;
                    extra_of[g] += e;
                    (e > 0 ? pos[g] : neg[g]) += std::fabs(e);
                }
                double root_pos = 0, root_neg = 0;
                for (int g = 0; g < 3; ++g) {
                    d += 0.5 * std::min(pos[g], neg[g]);
                    (extra_of[g] > 0 ? root_pos : root_neg) += std::fabs(extra_of[g]);
                }
                d += std::min(root_pos, root_neg);
            } else {
                double cumulative = 0;
                for (uint32_t s : order) {
                    cumulative += double(h[s]) / size - double(table[s]) / rows;
                    d += std::fabs(cumulative);
                }
                d = order.size() > 1 ? d / double(order.size() - 1) : 0;
            }
            if (strictly_below(*q.t, d)) keep = false;
        }
        if (q.delta) {
            double d = 0;
            for (auto& [s, c] : table)
                d = std::max(d, h[s] == 0 ? INFINITY : std::fabs(std::log((double(h[s]) / size) / (double(c) / rows))));
            if (!strictly_below(d, *q.delta)) keep = false;
        }
        kept.emplace_back(&members, keep);
        if (!keep) ref.violating += int64_t(members.size());
    }
    // Suppressed when the budget allows; else every class stays (and the node fails).
    if (strictly_below(q.max_suppression * rows, double(ref.violating))) {
        ref.safe = false;
        for (auto& k : kept) k.second = true;
    }
    // The release after suppression.
    ContingencyTable released;
    for (const auto& v : in.values) released.intern(v ? Value(*v) : Value());
    int64_t released_classes = 0;
    for (auto& [members, keep] : kept) {
        double size = double(members->size());
        if (keep) {
            std::map<uint32_t, int64_t> h;
            for (std::size_t r : *members) ++h[in.sensitive[r]];
            std::vector<ContingencyTable::Pair> pairs(h.begin(), h.end());
            released.add_class(pairs);
            ++released_classes;
        } else {
            ref.suppressed += int64_t(size);
        }
        if (in.metric == UtilityMetric::Discernibility) ref.utility += keep ? size * size : size * rows;
    }
    int64_t left = int64_t(n) - ref.suppressed;
    if (q.c && left > 0) {
        released.canonicalize();
        if (!strictly_below(ck_disclosure_curve(released, q.ck_k)[q.ck_k], *q.c)) ref.safe = false;
    }
    if (q.average_risk && left > 0 && strictly_below(*q.average_risk, double(released_classes) / double(left)))
        ref.safe = false;

    // Utility, row by row.
    std::set<std::size_t> suppressed_rows;
    for (auto& [members, keep] : kept)
        if (!keep) suppressed_rows.insert(members->begin(), members->end());
    if (in.metric == UtilityMetric::Height) ref.utility = std::accumulate(levels.begin(), levels.end(), 0);
    if (in.metric == UtilityMetric::LevelsKept) {  // minus the mean record utility Σ(height − level); 0 if suppressed
        double kept = 0;
        for (std::size_t j = 0; j < m; ++j) kept += in.dims[j].height() - levels[j];
        ref.utility = n ? -kept * double(int64_t(n) - ref.suppressed) / rows : 0;  // no rows, no utility
    }
    if (in.metric == UtilityMetric::Loss || in.metric == UtilityMetric::Entropy) {
        double total = 0;
        for (std::size_t j = 0; j < m; ++j) {
            std::map<uint32_t, int64_t> code_rows;
            for (std::size_t r = 0; r < n; ++r) ++code_rows[in.rows[r][j]];
            std::map<uint32_t, std::set<uint32_t>> under;
            std::map<uint32_t, int64_t> group_rows;
            for (std::size_t r = 0; r < n; ++r) {
                under[gen(r, j, levels[j])].insert(in.rows[r][j]);
                ++group_rows[gen(r, j, levels[j])];
            }
            for (std::size_t r = 0; r < n; ++r) {
                bool gone = suppressed_rows.count(r) > 0;
                uint32_t g = gen(r, j, levels[j]);
                if (in.metric == UtilityMetric::Loss) {
                    double present = double(code_rows.size());
                    total += gone ? 1 : present > 1 ? double(under[g].size() - 1) / (present - 1) : 0;
                } else {
                    double x = double(code_rows[in.rows[r][j]]);
                    total += std::log2((gone ? rows : double(group_rows[g])) / x);
                }
            }
        }
        ref.utility = in.metric == UtilityMetric::Loss ? (n ? total / (double(m) * rows) : 0) : total;
    }
    return ref;
}

std::vector<std::vector<int>> every_node(const Instance& in) {
    std::vector<std::vector<int>> nodes{{}};
    for (const auto& d : in.dims) {
        std::vector<std::vector<int>> next;
        for (const auto& prefix : nodes)
            for (int l = 0; l <= d.height(); ++l) {
                auto node = prefix;
                node.push_back(l);
                next.push_back(node);
            }
        nodes.swap(next);
    }
    return nodes;
}

bool close(double a, double b) { return std::fabs(a - b) <= 1e-9 * std::max(1.0, std::fabs(b)); }

}  // namespace

TEST(LatticeSearch, EveryNodeMatchesTheReference) {
    std::mt19937_64 rng(20261123);
    int qualifying = 0, suppressing = 0;
    for (int trial = 0; trial < 400; ++trial) {
        Instance in = random_instance(rng);
        GeneralizationLattice lattice = build(in);
        auto reports = lattice.every_node();
        auto nodes = every_node(in);
        ASSERT_EQ(reports.size(), nodes.size());
        for (std::size_t i = 0; i < nodes.size(); ++i) {
            ASSERT_EQ(reports[i].levels, nodes[i]) << "trial " << trial;
            Reference ref = reference(in, nodes[i]);
            ASSERT_EQ(reports[i].safe, ref.safe) << "trial " << trial << " node " << i;
            ASSERT_EQ(reports[i].suppressed, ref.suppressed) << "trial " << trial << " node " << i;
            ASSERT_EQ(reports[i].violating, ref.violating) << "trial " << trial << " node " << i;
            ASSERT_TRUE(close(reports[i].utility, ref.utility))
                << "trial " << trial << " node " << i << ": " << reports[i].utility << " vs " << ref.utility;
            if (ref.safe) {
                ASSERT_LE(lattice.utility_bound(int64_t(i)),
                          reports[i].utility + 1e-12 * std::max(1.0, std::fabs(reports[i].utility)));
            }
            qualifying += ref.safe;
            suppressing += ref.safe && ref.suppressed > 0;
        }
    }
    EXPECT_GT(qualifying, 1000);  // the instances are not vacuous
    EXPECT_GT(suppressing, 50);
}

TEST(LatticeSearch, SearchFindsTheExhaustiveOptimum) {
    std::mt19937_64 rng(7);
    int found = 0, none = 0, pruned = 0;
    for (int trial = 0; trial < 1500; ++trial) {
        Instance in = random_instance(rng);
        std::optional<double> best;
        for (const auto& node : every_node(in)) {
            Reference ref = reference(in, node);
            if (ref.safe && (!best || ref.utility < *best)) best = ref.utility;
        }
        GeneralizationLattice lattice = build(in);
        SearchResult result = lattice.search();
        ASSERT_EQ(result.best.has_value(), best.has_value()) << "trial " << trial;
        if (!best) {
            ++none;
            continue;
        }
        ++found;
        Reference chosen = reference(in, result.best->levels);
        EXPECT_TRUE(chosen.safe) << "trial " << trial;
        EXPECT_TRUE(close(chosen.utility, *best)) << "trial " << trial << ": " << chosen.utility << " vs " << *best;
        EXPECT_EQ(result.best->suppressed, chosen.suppressed) << "trial " << trial;
        pruned += result.stats.evaluated < result.stats.nodes;
    }
    EXPECT_GT(found, 500);
    EXPECT_GT(none, 20);
    EXPECT_GT(pruned, 300);  // tagging and bounds skip nodes
}

// [MKMGH07]: the Figure 1 lattice; minimal (c,k)-safe nodes.
TEST(LatticeSearch, FigureOneLattice) {
    // zip 14850 / 14853 -> 1485*; age 21..29 -> 2*; sex M / F -> *
    Instance in;
    auto dim = [](const char* name, int codes) {
        LatticeDimension d;
        d.name = name;
        std::vector<uint32_t> id(codes), top(codes, 0);
        for (int c = 0; c < codes; ++c) id[c] = c;
        d.ancestor = {id, top};
        return d;
    };
    in.dims = {dim("zip", 2), dim("age", 9), dim("sex", 2)};
    // (zip, age - 21, sex, disease)
    const char* disease[] = {"Flu", "Lung Cancer", "Mumps", "Breast Cancer", "Ovarian Cancer", "Heart Disease"};
    int table[10][4] = {{0, 2, 0, 0}, {0, 3, 0, 0}, {0, 4, 0, 1}, {0, 6, 0, 1}, {1, 8, 0, 2},
                        {0, 0, 1, 0}, {0, 1, 1, 0}, {1, 3, 1, 3}, {1, 5, 1, 4}, {1, 7, 1, 5}};
    for (auto& r : table) {
        in.rows.push_back({uint32_t(r[0]), uint32_t(r[1]), uint32_t(r[2])});
        in.sensitive.push_back(r[3]);
    }
    for (const char* d : disease) in.values.emplace_back(d);
    in.metric = UtilityMetric::Height;
    auto minimal = [&](double c, int k) {
        in.q = Constraints{};
        in.q.c = c;
        in.q.ck_k = k;
        GeneralizationLattice lattice = build(in);
        auto all = lattice.every_node();
        std::vector<std::vector<int>> result;
        for (const auto& r : all) {
            if (!r.safe) continue;
            bool is_minimal = true;
            for (const auto& s : all)
                if (s.safe && s.levels != r.levels && s.levels[0] <= r.levels[0] && s.levels[1] <= r.levels[1] &&
                    s.levels[2] <= r.levels[2])
                    is_minimal = false;
            if (is_minimal) result.push_back(r.levels);
        }
        return result;
    };
    using Nodes = std::vector<std::vector<int>>;
    EXPECT_EQ(minimal(1, 0), (Nodes{{0, 1, 1}, {1, 1, 0}}));
    EXPECT_EQ(minimal(0.5, 0), (Nodes{{1, 1, 0}}));
    EXPECT_EQ(minimal(1, 1), (Nodes{{1, 1, 0}}));
    EXPECT_EQ(minimal(0.7, 1), (Nodes{{1, 1, 0}}));
    EXPECT_EQ(minimal(1, 2), (Nodes{{1, 1, 1}}));
    // The search returns the lowest of them, and the node's MD_1 is 2/3.
    in.q = Constraints{};
    in.q.c = 0.7;
    in.q.ck_k = 1;
    auto result = build(in).search();
    ASSERT_TRUE(result.best);
    EXPECT_EQ(result.best->levels, (std::vector<int>{1, 1, 0}));
    EXPECT_NEAR(*result.best->ck, 2.0 / 3, 1e-12);
    EXPECT_EQ(result.best->classes, 2);
}

TEST(LatticeSearch, BadInput) {
    Instance in;
    LatticeDimension d;
    d.name = "x";
    d.ancestor = {{0, 1}, {0, 0}};
    in.dims = {d};
    in.q.l = 2;  // needs a sensitive column
    BaseClassBuilder b(1, false);
    uint32_t code = 0;
    b.add(&code, 0);
    EXPECT_NE(privrisk_test::error_of([&] { GeneralizationLattice(in.dims, b.finish(), {}, in.q, in.metric); })
                  .find("need a sensitive column"),
              std::string::npos);
    in.q = Constraints{};
    BaseClassBuilder b2(1, false);
    b2.add(&code, 0);
    GeneralizationLattice lattice(in.dims, b2.finish(), {}, in.q, in.metric);
    EXPECT_NE(privrisk_test::error_of([&] { lattice.evaluate({2}); }).find("out of range"), std::string::npos);
    EXPECT_NE(privrisk_test::error_of([&] { lattice.evaluate({0, 0}); }).find("one level per quasi-identifier"),
              std::string::npos);
    // A lattice past the node limit is refused before anything is allocated for it.
    std::vector<LatticeDimension> many(23, d);
    BaseClassBuilder b3(23, false);
    std::vector<uint32_t> codes(23, 0);
    b3.add(codes.data(), 0);
    EXPECT_NE(privrisk_test::error_of([&] { GeneralizationLattice(many, b3.finish(), {}, in.q, in.metric); })
                  .find("more than 4194304 nodes"),
              std::string::npos);
}

// A memory bound that leaves the cache of rolled-up classes little room changes the
// work (more classes rolled up, from farther below), never the result; a bound the
// level-0 classes or lattice()'s reports cannot fit in is an error naming the setting.
TEST(LatticeSearch, MemoryBoundShrinksTheCacheNotTheResult) {
    std::mt19937_64 rng(20261126);
    int64_t rolled_free = 0, rolled_bounded = 0;
    int searched = 0, refused = 0;
    for (int trial = 0; trial < 600; ++trial) {
        Instance in = random_instance(rng);
        const std::size_t base = base_of(in).bytes();
        int64_t nodes = 1;
        for (const auto& d : in.dims) nodes *= d.height() + 1;
        // The fixed part, one node's classes (never more than the base's) thrice while it is evaluated,
        // and the reports: the cache gets at most the base's size instead of twice it and 64 MB.
        const std::size_t tight = 4 * base + std::size_t(nodes) * (9 + GeneralizationLattice::kReportBytes);
        MemoryBound bound{tight, "privrisk.memory_limit", 0, ""};
        SearchResult free = build(in).search();
        SearchResult bounded = build(in, bound).search();
        ASSERT_EQ(free.best.has_value(), bounded.best.has_value()) << "trial " << trial;
        if (free.best) {
            EXPECT_EQ(free.best->levels, bounded.best->levels) << "trial " << trial;
            EXPECT_EQ(free.best->utility, bounded.best->utility) << "trial " << trial;
            EXPECT_EQ(free.best->suppressed, bounded.best->suppressed) << "trial " << trial;
        }
        EXPECT_EQ(free.stats.evaluated, bounded.stats.evaluated) << "trial " << trial;
        EXPECT_GE(bounded.stats.rolled_up, free.stats.rolled_up) << "trial " << trial;
        rolled_free += free.stats.rolled_up;
        rolled_bounded += bounded.stats.rolled_up;
        ++searched;
        // lattice() holds every node's report twice: refused up front when they do not fit beside the rest.
        if (base + std::size_t(nodes) * (9 + 2 * GeneralizationLattice::kReportBytes) > tight) {
            std::string e = privrisk_test::error_of([&] { build(in, bound).every_node(); });
            EXPECT_NE(e.find("more than privrisk.memory_limit"), std::string::npos) << e;
            ++refused;
        }
        // Below the level-0 classes themselves: refused when the lattice is made.
        if (base > 0) {
            std::string e = privrisk_test::error_of([&] { build(in, MemoryBound{base - 1, "privrisk.memory_limit", 0, ""}); });
            EXPECT_NE(e.find("search: the level-0 classes"), std::string::npos) << e;
        }
    }
    EXPECT_EQ(searched, 600);
    EXPECT_GT(refused, 300);
    EXPECT_GT(rolled_bounded, rolled_free);  // the bound did shrink the cache somewhere
}

// Roll-ups with keys packed into a word and with keys compared code by code give the same classes.
TEST(LatticeSearch, PackedAndUnpackedRollUpsAgree) {
    std::mt19937_64 rng(99);
    for (int trial = 0; trial < 50; ++trial) {
        const std::size_t width = 1 + rng() % 4;
        const uint32_t codes = 2 + rng() % 299, parents = 2 + rng() % 40, values = 1 + rng() % 5;
        BaseClassBuilder b(width, trial % 2 == 0);
        std::vector<uint32_t> key(width);
        for (int r = 0; r < 3000; ++r) {
            for (auto& k : key) k = static_cast<uint32_t>(rng() % codes);
            b.add(key.data(), static_cast<uint32_t>(rng() % values));
        }
        NodeClasses base = b.finish();
        std::vector<std::vector<uint32_t>> maps(width, std::vector<uint32_t>(codes));
        std::vector<const uint32_t*> map_ptrs;
        for (auto& m : maps) {
            for (auto& p : m) p = static_cast<uint32_t>(rng() % parents);
            map_ptrs.push_back(m.data());
        }
        std::vector<int> bits(width, 9);  // 300 codes fit 9 bits
        NodeClasses packed = roll_up(base, map_ptrs, values, bits, nullptr, nullptr);
        NodeClasses plain = roll_up(base, map_ptrs, values, {}, nullptr, nullptr);
        ASSERT_EQ(by_key(packed), by_key(plain)) << "trial " << trial;
        int64_t rows = 0;
        for (int64_t s : packed.sizes) rows += s;
        EXPECT_EQ(rows, 3000);
        EXPECT_GT(packed.classes(), 1u);
    }
}

// Classes read from shards arrive as counts: adding (class, value, count) gives
// the same base classes as adding each row, in any mix of the two.
TEST(LatticeSearch, CountedAndSingleRowsBuildTheSameBase) {
    std::mt19937_64 rng(5);
    for (int trial = 0; trial < 40; ++trial) {
        const std::size_t width = 1 + rng() % 3;
        const uint32_t codes = 2 + rng() % 20, values = 1 + rng() % 4;
        const bool histograms = trial % 2 == 0;
        std::vector<std::pair<std::vector<uint32_t>, uint32_t>> rows(2000);
        for (auto& r : rows) {
            r.first.resize(width);
            for (auto& k : r.first) k = static_cast<uint32_t>(rng() % codes);
            r.second = static_cast<uint32_t>(rng() % values);
        }
        BaseClassBuilder single(width, histograms), counted(width, histograms);
        for (auto& r : rows) single.add(r.first.data(), r.second);
        // Grouped in order of first appearance, so classes get the same indexes; every third row stays single.
        std::vector<std::pair<std::vector<uint32_t>, uint32_t>> order;
        std::map<std::pair<std::vector<uint32_t>, uint32_t>, int64_t> count;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (i % 3 == 0) continue;
            if (count[rows[i]]++ == 0) order.push_back(rows[i]);
        }
        std::size_t next = 0;
        for (std::size_t i = 0; i < rows.size(); ++i) {
            if (i % 3 == 0) {
                counted.add(rows[i].first.data(), rows[i].second);
            } else if (next < order.size() && order[next] == rows[i]) {
                counted.add(order[next].first.data(), order[next].second, count[order[next]]);
                ++next;
            }
        }
        NodeClasses a = single.finish(), b = counted.finish();
        ASSERT_EQ(a.classes(), b.classes());
        EXPECT_EQ(by_key(a), by_key(b)) << "trial " << trial;
        EXPECT_EQ(std::accumulate(b.sizes.begin(), b.sizes.end(), int64_t(0)), 2000);
    }
}

// Shards' classes arrive as counts, a class met by several shards once from each, in
// any order: the pairs, merged as they come (here every 64), give the base classes
// of adding each row.
TEST(LatticeSearch, PairsFromSeveralShardsMergeAsTheyCome) {
    std::mt19937_64 rng(8);
    for (int trial = 0; trial < 30; ++trial) {
        const std::size_t width = 1 + rng() % 3;
        const uint32_t codes = 2 + rng() % 30, values = 1 + rng() % 6;
        const bool histograms = trial % 3 != 0;
        BaseClassBuilder single(width, histograms), shards(width, histograms, 64);
        std::map<std::pair<std::vector<uint32_t>, uint32_t>, int64_t> count;
        for (int r = 0; r < 5000; ++r) {
            std::vector<uint32_t> key(width);
            for (auto& k : key) k = static_cast<uint32_t>(rng() % codes);
            const uint32_t value = histograms ? static_cast<uint32_t>(rng() % values) : 0;
            single.add(key.data(), value);
            ++count[{key, value}];
        }
        // Each pair's rows split over up to three shards, the pieces in a shuffled order.
        std::vector<std::pair<std::pair<std::vector<uint32_t>, uint32_t>, int64_t>> pieces;
        for (const auto& [pair, n] : count) {
            int64_t left = n;
            for (int s = 0; s < 2 && left > 1; ++s) {
                const int64_t part = 1 + static_cast<int64_t>(rng() % static_cast<uint64_t>(left - 1));
                pieces.push_back({pair, part});
                left -= part;
            }
            pieces.push_back({pair, left});
        }
        std::shuffle(pieces.begin(), pieces.end(), rng);
        for (const auto& [pair, n] : pieces) shards.add(pair.first.data(), pair.second, n);
        NodeClasses a = single.finish(), b = shards.finish();
        ASSERT_EQ(a.classes(), b.classes());
        EXPECT_EQ(by_key(a), by_key(b)) << "trial " << trial;
    }
}
