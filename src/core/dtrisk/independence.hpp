// Independence-based choice of the k attributes to disclose ([LSFB09] §4.2;
// decisions L and A16): with attributes independent in the dictionary, |ρ| factorizes,
// and the least loss of disclosing exactly k attributes discloses those with the
// k smallest factors g_j = e^(w_j) / f_j, f_j being the fraction of dictionary
// entries consistent with the record's value of attribute j (multiplicative Φ).
// loss = (1/N)·Π over disclosed j of g_j. A zero f_j means nothing matches: loss 0.
#pragma once

#include <vector>

namespace privrisk {

struct IndependentChoice {
    std::vector<int> disclosed;   // attribute indices, in the order chosen (smallest factor first)
    std::vector<double> factors;  // g_j of every attribute
    double loss = 0;
};

IndependentChoice independent_top_k(const std::vector<double>& weights, const std::vector<double>& frequencies,
                                    double dictionary_size, int k);

}  // namespace privrisk
