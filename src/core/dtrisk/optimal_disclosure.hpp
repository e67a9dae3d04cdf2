// Optimal disclosure of one record (paper eq. 7–9; thesis ch. 4, [Fou12]
// §3.3–3.6): the record's generalization lattice is every level vector x with
// 0 ≤ x_i ≤ h_i (x_i generalization steps on attribute i; h_i is ⊥), and risk
// and utility are non-increasing as x grows. Problems:
//   min_risk:     minimize r(x) subject to u(x) ≥ c   (4.2, the thesis' form)
//   max_utility:  maximize u(x) subject to r(x) ≤ c   (4.1)
//   lagrangian:   minimize r(x) − λ·u(x)              (4.3)
// Methods: exhaustive (the oracle, every form), btda (best-first from ⊤, min_risk),
// aruba (frontier walk over the adjacency cube, min_risk), genetic (seeded
// paths from ⊤, min_risk; a heuristic). Ties: lower risk, then higher utility,
// then the lexicographically smaller level vector.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

namespace privrisk {

enum class DisclosureProblem { MinRisk, MaxUtility, Lagrangian };
enum class DisclosureMethod { Exhaustive, Btda, Aruba, Genetic };

struct DisclosureSearch {
    std::vector<int> heights;                                // h_i
    std::function<double(const std::vector<int>&)> risk;     // r(x), non-increasing in x
    std::function<double(const std::vector<int>&)> utility;  // u(x), non-increasing in x
    DisclosureProblem problem = DisclosureProblem::MinRisk;
    double bound = 0;   // c
    double lambda = 0;  // λ of the Lagrangian form
    uint64_t seed = 1;  // genetic
    int population = 32, generations = 50;
};

struct DisclosureResult {
    bool found = false;
    std::vector<int> levels;
    double risk = 0, utility = 0;
    int64_t visited = 0;  // distinct nodes whose risk or utility was evaluated as candidates
};

DisclosureResult optimal_disclosure(const DisclosureSearch& s, DisclosureMethod method);

// Lattices above this many nodes are refused by exhaustive search.
constexpr int64_t kMaxDisclosureNodes = 5'000'000;

}  // namespace privrisk
