#include "dtrisk/optimal_disclosure.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <queue>
#include <random>
#include <set>
#include <string>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {
namespace {

using Node = std::vector<int>;

// Memoized r and u; `visited` counts the nodes a method looked at.
struct Evaluator {
    const DisclosureSearch& s;
    std::map<Node, std::pair<double, double>> seen;
    const std::pair<double, double>& at(const Node& x) {
        auto it = seen.find(x);
        if (it != seen.end()) return it->second;
        return seen.emplace(x, std::make_pair(s.risk(x), s.utility(x))).first->second;
    }
    double risk(const Node& x) { return at(x).first; }
    double utility(const Node& x) { return at(x).second; }
    bool feasible(const Node& x) { return utility(x) >= s.bound; }
};

// a better than b: lower risk, then higher utility, then lexicographically smaller.
bool better(double ra, double ua, const Node& a, double rb, double ub, const Node& b) {
    if (ra != rb) return ra < rb;
    if (ua != ub) return ua > ub;
    return a < b;
}

DisclosureResult result_of(Evaluator& e, const Node& x, int64_t visited) {
    DisclosureResult r;
    r.found = true;
    r.levels = x;
    r.risk = e.risk(x);
    r.utility = e.utility(x);
    r.visited = visited;
    return r;
}

int64_t lattice_size(const std::vector<int>& h) {
    int64_t n = 1;
    for (int v : h) {
        if (v < 0) fail(ErrorKind::InvalidParameter, "a height must be >= 0");
        n *= v + 1;
        if (n > kMaxDisclosureNodes) return kMaxDisclosureNodes + 1;
    }
    return n;
}

DisclosureResult exhaustive(const DisclosureSearch& s) {
    const int64_t n = lattice_size(s.heights);
    if (n > kMaxDisclosureNodes)
        fail(ErrorKind::ProgramLimit,
             "exhaustive search visits every node: more than " + std::to_string(kMaxDisclosureNodes));
    Evaluator e{s, {}};
    DisclosureResult best;
    double best_objective = 0;
    Node x(s.heights.size(), 0);
    for (int64_t i = 0; i < n; ++i) {
        int64_t rest = i;
        for (std::size_t j = s.heights.size(); j-- > 0;) {
            x[j] = static_cast<int>(rest % (s.heights[j] + 1));
            rest /= s.heights[j] + 1;
        }
        const double r = e.risk(x), u = e.utility(x);
        bool ok = true;
        double objective = r;  // smaller is better
        switch (s.problem) {
            case DisclosureProblem::MinRisk:
                ok = u >= s.bound;
                break;
            case DisclosureProblem::MaxUtility:
                ok = r <= s.bound;
                objective = -u;
                break;
            case DisclosureProblem::Lagrangian:
                objective = r - s.lambda * u;
                break;
        }
        if (!ok) continue;
        bool take = !best.found || objective < best_objective ||
                    (objective == best_objective && better(r, u, x, best.risk, best.utility, best.levels));
        if (take) {
            best = result_of(e, x, 0);
            best_objective = objective;
        }
    }
    best.visited = n;
    return best;
}

// Best-first from ⊤ by risk (a heap); the first feasible node popped is optimal
// because risk only grows as the record is specialized (Thm 4.5.1).
DisclosureResult btda(const DisclosureSearch& s) {
    Evaluator e{s, {}};
    struct Entry {
        double r, u;
        Node x;
    };
    auto worse = [](const Entry& a, const Entry& b) { return better(b.r, b.u, b.x, a.r, a.u, a.x); };
    std::priority_queue<Entry, std::vector<Entry>, decltype(worse)> queue(worse);
    std::set<Node> visited;
    Node top = s.heights;
    visited.insert(top);
    queue.push(Entry{e.risk(top), e.utility(top), top});
    while (!queue.empty()) {
        Entry v = queue.top();
        if (v.u >= s.bound) return result_of(e, v.x, static_cast<int64_t>(visited.size()));
        queue.pop();
        for (std::size_t i = 0; i < v.x.size(); ++i) {
            if (v.x[i] == 0) continue;
            Node w = v.x;
            --w[i];  // one specialization step
            if (visited.insert(w).second) queue.push(Entry{e.risk(w), e.utility(w), w});
        }
    }
    DisclosureResult none;
    none.visited = static_cast<int64_t>(visited.size());
    return none;
}

// A feasible node one of whose immediate generalizations is infeasible.
bool frontier(Evaluator& e, const DisclosureSearch& s, const Node& x) {
    if (!e.feasible(x)) return false;
    for (std::size_t i = 0; i < x.size(); ++i) {
        if (x[i] == s.heights[i]) continue;
        Node g = x;
        ++g[i];
        if (!e.feasible(g)) return true;
    }
    return false;
}

// ARUBA: find one frontier node by generalizing the record, then visit the
// frontier through adjacency cubes (x_i ± 1 on any subset of attributes).
DisclosureResult aruba(const DisclosureSearch& s) {
    Evaluator e{s, {}};
    const std::size_t k = s.heights.size();
    if (k > 12) fail(ErrorKind::ProgramLimit, "aruba's adjacency cube has 3^k nodes: at most 12 attributes");
    std::set<Node> visited;
    Node a(k, 0), top = s.heights;
    visited.insert(a);
    if (!e.feasible(a)) {
        DisclosureResult none;
        none.visited = 1;
        return none;
    }
    if (e.feasible(top)) {
        visited.insert(top);
        return result_of(e, top, static_cast<int64_t>(visited.size()));
    }
    Node v = a;
    std::vector<Node> walked = {a};
    for (;;) {  // generalize the first attribute that can be, until the next step is infeasible
        std::size_t i = 0;
        while (i < k && v[i] == s.heights[i]) ++i;
        Node w = v;
        ++w[i];
        visited.insert(w);
        if (!e.feasible(w)) break;
        v = w;
        walked.push_back(v);
    }
    Node best = v;
    std::vector<Node> pending = {v};  // uninvestigated frontier nodes, FIFO
    walked.pop_back();
    for (const Node& w : walked)  // the walk's other frontier nodes: already visited, so no cube would add them
        if (frontier(e, s, w)) pending.push_back(w);
    for (std::size_t next = 0; next < pending.size(); ++next) {
        const Node f = pending[next];
        if (better(e.risk(f), e.utility(f), f, e.risk(best), e.utility(best), best)) best = f;
        std::vector<int> offset(k, -1);
        for (;;) {  // every offset in {-1, 0, 1}^k except 0
            bool zero = std::all_of(offset.begin(), offset.end(), [](int o) { return o == 0; });
            if (!zero) {
                Node w = f;
                bool inside = true;
                for (std::size_t j = 0; j < k && inside; ++j) {
                    w[j] += offset[j];
                    inside = w[j] >= 0 && w[j] <= s.heights[j];
                }
                if (inside && visited.insert(w).second && frontier(e, s, w)) pending.push_back(w);
            }
            std::size_t j = 0;
            while (j < k && offset[j] == 1) offset[j++] = -1;
            if (j == k) break;
            ++offset[j];
        }
    }
    return result_of(e, best, static_cast<int64_t>(visited.size()));
}

// Genetic search (§4.5.4 with the paper's defaults): a chromosome is a path of
// specialization steps from ⊤; it decodes to the first feasible node on it.
DisclosureResult genetic(const DisclosureSearch& s) {
    Evaluator e{s, {}};
    const std::size_t k = s.heights.size();
    std::mt19937_64 random(s.seed);
    Node a(k, 0);
    if (!e.feasible(a)) return DisclosureResult{};
    const Node top = s.heights;
    if (e.feasible(top)) return result_of(e, top, 1);
    using Path = std::vector<int>;
    // Walks a path from ⊤, skipping steps on exhausted attributes; at its end,
    // random steps until feasible. Returns the decoded (repaired) path and node.
    auto decode = [&](const Path& path) {
        Node x = top;
        Path used;
        auto step = [&](int i) {
            --x[i];
            used.push_back(i);
            return e.feasible(x);
        };
        for (int i : path)
            if (x[i] > 0 && step(i)) return std::make_pair(used, x);
        for (;;) {
            std::vector<int> open;
            for (std::size_t i = 0; i < k; ++i)
                if (x[i] > 0) open.push_back(static_cast<int>(i));
            if (open.empty()) return std::make_pair(used, x);  // reached the record, which is feasible
            if (step(open[random() % open.size()])) return std::make_pair(used, x);
        }
    };
    struct Member {
        Path path;
        Node x;
        double r, u;
    };
    auto make = [&](const Path& p) {
        auto [used, x] = decode(p);
        return Member{used, x, e.risk(x), e.utility(x)};
    };
    auto fitter = [](const Member& a, const Member& b) { return better(a.r, a.u, a.x, b.r, b.u, b.x); };
    std::vector<Member> population;
    for (int i = 0; i < s.population; ++i) population.push_back(make({}));
    std::sort(population.begin(), population.end(), fitter);
    Member best = population.front();
    int stale = 0;
    for (int g = 0; g < s.generations && stale < 10; ++g) {
        std::vector<Member> next(population.begin(), population.begin() + population.size() / 2);  // rank selection
        while (static_cast<int>(next.size()) < s.population - s.population / 10) {
            const Member& p1 = population[random() % (population.size() / 2)];
            const Member& p2 = population[random() % population.size()];
            Path child(p1.path.begin(), p1.path.begin() + p1.path.size() / 2);  // crossover at the middle
            child.insert(child.end(), p2.path.begin() + std::min(p2.path.size(), p2.path.size() / 2), p2.path.end());
            if (!child.empty()) {  // mutation near the middle
                std::size_t at = std::min(child.size() - 1, child.size() / 2 + random() % 3);
                at = at > 0 ? at - 1 : 0;
                child[at] = static_cast<int>(random() % k);
            }
            next.push_back(make(child));
        }
        while (static_cast<int>(next.size()) < s.population) next.push_back(make({}));  // immigrants
        std::sort(next.begin(), next.end(), fitter);
        population = std::move(next);
        if (fitter(population.front(), best)) {
            best = population.front();
            stale = 0;
        } else {
            ++stale;
        }
    }
    return result_of(e, best.x, static_cast<int64_t>(e.seen.size()));
}

}  // namespace

DisclosureResult optimal_disclosure(const DisclosureSearch& s, DisclosureMethod method) {
    if (s.heights.empty()) fail(ErrorKind::InvalidParameter, "a record needs at least one attribute");
    if (method != DisclosureMethod::Exhaustive && s.problem != DisclosureProblem::MinRisk)
        fail(ErrorKind::InvalidParameter,
             "btda, aruba and genetic solve min_risk (minimize risk subject to utility >= c); "
             "use exhaustive for max_utility and lagrangian");
    if (s.population < 4 || s.generations < 1)
        fail(ErrorKind::InvalidParameter, "genetic needs a population of at least 4");
    switch (method) {
        case DisclosureMethod::Exhaustive:
            return exhaustive(s);
        case DisclosureMethod::Btda:
            return btda(s);
        case DisclosureMethod::Aruba:
            return aruba(s);
        case DisclosureMethod::Genetic:
            return genetic(s);
    }
    fail(ErrorKind::Internal, "unknown method");
}

}  // namespace privrisk
