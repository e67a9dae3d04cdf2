// Why a search found nothing (docs/search.md, "When nothing qualifies"): each
// constraint measured at a node against its threshold, the constraints that
// fail even at the top node (every quasi-identifier at ⊥), and a summary.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "search/lattice_search.hpp"

namespace privrisk {

struct ConstraintCheck {
    std::string constraint;       // the key of search()'s constraints: "k", "l", "c", "max_suppression", …
    std::optional<double> value;  // the node's measure (nullopt: no row is released)
    double threshold;
    bool passed;
};

// Every constraint `q` sets, in a fixed order, measured on a report made under `q`
// with the search's own comparisons. max_suppression is listed when it is above 0:
// its value is the share of rows in violating classes.
std::vector<ConstraintCheck> check_constraints(const NodeReport& r, const Constraints& q, int64_t rows);

// `q` without the constraints that `failing` lists as failed (the search for the
// nearest node: every node fails at least what the top fails, when q is monotone).
Constraints without_failed(const Constraints& q, const std::vector<ConstraintCheck>& failing);

// One paragraph for a steward: what fails at the top node, with its value and what
// it needs, and what the nearest node still fails (levels as "name: level, …").
std::string nothing_found_summary(const std::string& top_levels, const std::vector<ConstraintCheck>& at_top,
                                  const Constraints& q, const std::string& nearest_levels,
                                  const std::vector<ConstraintCheck>& nearest);

}  // namespace privrisk
