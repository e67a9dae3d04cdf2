// Which classes violate a per-class constraint (k, max_risk, ℓ-diversity, t-closeness,
// δ-disclosure) and so must be suppressed: the one decision that search() makes
// at each lattice node and a release makes at every read (docs/release.md,
// "Record suppression"), so the two can never disagree.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "search/lattice_search.hpp"

namespace privrisk {

struct ClassVerdicts {
    std::vector<char> keep;           // per class: 1 when it meets every per-class constraint
    std::vector<double> l, t, delta;  // per class, for the constraints given (else empty)
    int64_t violating = 0;            // rows of the classes not kept
};

// `sensitive` names the sensitive value ids of the classes' histograms (⊥ as nullopt).
ClassVerdicts violating_classes(const NodeClasses& classes, const std::vector<std::optional<std::string>>& sensitive,
                                const Constraints& constraints);

// Whether suppressing `violating` of `rows` rows stays within max_suppression.
bool suppression_within(double max_suppression, int64_t rows, int64_t violating);

// The classes as a contingency table (ids as the classes number them), of the kept ones when `keep` is given.
ContingencyTable class_table(const NodeClasses& classes, const std::vector<std::optional<std::string>>& sensitive,
                             const std::vector<char>* keep);

}  // namespace privrisk
