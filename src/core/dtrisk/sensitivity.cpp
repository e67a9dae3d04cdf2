#include "dtrisk/sensitivity.hpp"

#include <cmath>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

void check_weight(double w, const std::string& what) {
    if (std::isnan(w) || w < 0)
        fail(ErrorKind::InvalidParameter, what + " must be a non-negative number (or Infinity), got " + number_text(w));
}

namespace {

void check_shape(const std::vector<double>& weights, const std::vector<bool>& disclosed) {
    if (weights.size() != disclosed.size())
        fail(ErrorKind::InvalidParameter, "weights and disclosed must have the same length, got " +
                                              std::to_string(weights.size()) + " and " +
                                              std::to_string(disclosed.size()));
    for (std::size_t j = 0; j < weights.size(); ++j) check_weight(weights[j], "weight " + std::to_string(j + 1));
}

}  // namespace

double sensitivity_linear(const std::vector<double>& weights, const std::vector<bool>& disclosed) {
    check_shape(weights, disclosed);
    double sum = 0;
    for (std::size_t j = 0; j < weights.size(); ++j)
        if (disclosed[j]) sum += weights[j];
    return sum;
}

double sensitivity_pairwise(const std::vector<double>& weights, const std::vector<double>& pairs,
                            const std::vector<bool>& disclosed) {
    double sum = sensitivity_linear(weights, disclosed);
    const std::size_t m = weights.size();
    if (pairs.size() != m * m)
        fail(ErrorKind::InvalidParameter, "pair weights must be an " + std::to_string(m) + " x " + std::to_string(m) +
                                              " matrix, got " + std::to_string(pairs.size()) + " entries");
    for (std::size_t j = 0; j < m; ++j)
        for (std::size_t h = j + 1; h < m; ++h) {
            check_weight(pairs[j * m + h],
                         "pair weight (" + std::to_string(j + 1) + ", " + std::to_string(h + 1) + ")");
            if (disclosed[j] && disclosed[h]) sum += pairs[j * m + h];
        }
    return sum;
}

double sensitivity_multiplicative(const std::vector<double>& weights, const std::vector<bool>& disclosed) {
    return std::exp(sensitivity_linear(weights, disclosed));
}

double harmonic_weight(const Hierarchy& h, Value node, double leaf_weight) {
    check_weight(leaf_weight, "the leaf weight");
    if (!node) return 0;
    if (h.level_of(*node) >= h.height()) return 0;
    return leaf_weight / h.leaf_count(*node);
}

double disclosure_loss(double phi, int64_t matches, double psi) {
    check_weight(phi, "phi");
    check_weight(psi, "psi");
    if (matches < 0) fail(ErrorKind::InvalidParameter, "matches must be >= 0, got " + std::to_string(matches));
    if (matches == 0) return psi;
    const double p = 1.0 / double(matches);
    const double identified = p * phi;                               // p > 0: ∞ stays ∞
    const double not_identified = matches == 1 ? 0 : (1 - p) * psi;  // 0·∞ = 0
    return identified + not_identified;
}

}  // namespace privrisk
