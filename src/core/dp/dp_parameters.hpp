// SafePub's privacy parameters (docs/dp.md; Bild, Kuhn, Prasser, PoPETs 2018;
// Li, Qardaji, Su, ASIACCS 2012): for a target (ε, δ), the sampling probability
// β = 1 − e^(−ε) and the least k such that sampling with β, then suppressing
// every class with fewer than k sampled rows, is (ε, δ)-differentially private.
//
// δ(k) = max over n ≥ ⌈k/γ − 1⌉ of a_n, a_n = P[Binomial(n, β) > ⌊nγ⌋],
// γ = (e^ε − 1 + β)/e^ε. a_n is summed in log space (lgamma), and the scan over n
// stops once the Chernoff bound c_n = exp(−n(γ ln(γ/β) − (γ − β))), which
// decreases in n and bounds every later a_n, falls below the maximum found.
// Rounding errs on the safe side only: β and γ are rounded down, each a_n is
// inflated by 1e-9 (relative) to cover the log-space error, so the k returned
// is never smaller than the exact relation's (at worst one larger at a tie).
#pragma once

#include <cstdint>

namespace privrisk {

struct DpParameters {
    double beta;  // sampling probability
    double gamma;
    int64_t k;       // classes with fewer sampled rows are suppressed
    double delta_k;  // δ(k) ≤ δ, as computed (an upper bound of the exact value)
};

DpParameters dp_parameters(double epsilon, double delta);
double safepub_delta(double beta, double gamma, int64_t k);  // δ(k), an upper bound

constexpr int64_t kMaxDpK = int64_t(1) << 40;
// Past ε ≈ 36.9, β = 1 − e^(−ε) and γ round to the same double (the relation
// breaks down); the scan's limit is reached long before for any useful δ.
constexpr double kMaxDpEpsilon = 36;
constexpr int64_t kMaxDpScan = 2'000'000;  // n examined for one δ(k); beyond, an error

}  // namespace privrisk
