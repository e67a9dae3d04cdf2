#include "dtrisk/independence.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>
#include <string>

#include "common/error.hpp"
#include "dtrisk/sensitivity.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

IndependentChoice independent_top_k(const std::vector<double>& weights, const std::vector<double>& frequencies,
                                    double dictionary_size, int k) {
    const std::size_t m = weights.size();
    if (frequencies.size() != m)
        fail(ErrorKind::InvalidParameter, "weights and frequencies must have the same length, got " +
                                              std::to_string(m) + " and " + std::to_string(frequencies.size()));
    if (!(dictionary_size >= 1) || !std::isfinite(dictionary_size))
        fail(ErrorKind::InvalidParameter,
             "the dictionary size must be at least 1, got " + number_text(dictionary_size));
    if (k < 0 || static_cast<std::size_t>(k) > m)
        fail(ErrorKind::InvalidParameter, "k must be in 0.." + std::to_string(m) + ", got " + std::to_string(k));
    IndependentChoice c;
    bool unmatched = false;
    for (std::size_t j = 0; j < m; ++j) {
        check_weight(weights[j], "weight " + std::to_string(j + 1));
        if (!(frequencies[j] >= 0 && frequencies[j] <= 1))
            fail(ErrorKind::InvalidParameter,
                 "frequency " + std::to_string(j + 1) + " must be in [0, 1], got " + number_text(frequencies[j]));
        c.factors.push_back(frequencies[j] == 0 ? INFINITY : std::exp(weights[j]) / frequencies[j]);
    }
    std::vector<int> order(m);
    std::iota(order.begin(), order.end(), 0);
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return c.factors[a] < c.factors[b]; });
    double loss = 1 / dictionary_size;
    for (int i = 0; i < k; ++i) {
        c.disclosed.push_back(order[i]);
        if (frequencies[order[i]] == 0) unmatched = true;
        else loss *= c.factors[order[i]];
    }
    c.loss = unmatched ? 0 : loss;
    return c;
}

}  // namespace privrisk
