// Sensitivity Φ and the decision-theoretic loss ([LSFB09] §3.2–3.4; decisions E, G,
// H; ambiguities A9–A12, E1, E9). ⊥ (an undisclosed value) adds nothing to a
// sum; weights are non-negative and may be +∞ ("disclose only with zero
// identification chance"); 0·∞ is 0.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "hierarchy/hierarchy.hpp"

namespace privrisk {

// Φ1 / Φ2 (personalized: pass the entity's weights): Σ over disclosed j of w_j.
double sensitivity_linear(const std::vector<double>& weights, const std::vector<bool>& disclosed);
// Φ3: Σ_j w_j + Σ_{j<h} w_jh over disclosed j, h (pairs: row-major m × m, upper triangle used).
double sensitivity_pairwise(const std::vector<double>& weights, const std::vector<double>& pairs,
                            const std::vector<bool>& disclosed);
// Φ4: exp(Σ over disclosed j of w_j); a fully suppressed record has Φ4 = 1 (E9).
double sensitivity_multiplicative(const std::vector<double>& weights, const std::vector<bool>& disclosed);

// The harmonic ("modified harmonic mean") weight of a node with equal leaf
// weights: leaf_weight / leaves under it; ⊥ (nullopt) weighs 0 (§3 H, §8).
double harmonic_weight(const Hierarchy& h, Value node, double leaf_weight);

// ℓ = p·Φ + (1 − p)·Ψ with p = 1/matches, and Ψ when nothing matches (§3 E):
// 0·∞ = 0, so an infinite Φ with no match is a loss of Ψ.
double disclosure_loss(double phi, int64_t matches, double psi = 0);

// Weights must be non-negative (NaN and negatives are errors naming `what`).
void check_weight(double w, const std::string& what);

}  // namespace privrisk
