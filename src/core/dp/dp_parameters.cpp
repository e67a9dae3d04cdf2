#include "dp/dp_parameters.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

namespace {

double round_down(double x) { return std::nextafter(x, 0.0); }

// log P[Binomial(n, β) > floor], in log space; the terms fall past the mode (floor ≥ nβ).
double log_upper_tail(int64_t n, int64_t floor, double log_beta, double log_rest) {
    if (floor >= n) return -std::numeric_limits<double>::infinity();
    const double lg_n = std::lgamma(double(n) + 1);
    auto term = [&](int64_t j) {
        return lg_n - std::lgamma(double(j) + 1) - std::lgamma(double(n - j) + 1) + double(j) * log_beta +
               double(n - j) * log_rest;
    };
    const double first = term(floor + 1);
    double sum = 1;  // Σ exp(t_j − first)
    for (int64_t j = floor + 2; j <= n; ++j) {
        double r = std::exp(term(j) - first);
        sum += r;
        if (r < 1e-20 * sum) break;  // the rest is smaller still, and geometric
    }
    return first + std::log(sum);
}

}  // namespace

double safepub_delta(double beta, double gamma, int64_t k) {
    const double log_beta = std::log(beta), log_rest = std::log1p(-beta);
    const double divergence = gamma * std::log(gamma / beta) - (gamma - beta);  // > 0 as γ > β
    int64_t n = std::max<int64_t>(1, static_cast<int64_t>(std::ceil(double(k) / gamma - 1)));
    double best = 0;
    for (int64_t examined = 0;; ++n, ++examined) {
        if (examined > kMaxDpScan)
            fail(ErrorKind::ProgramLimit,
                 "δ(k) needs more than " + std::to_string(kMaxDpScan) +
                     " sample sizes: SafePub's bound converges too slowly for ε near 0 or above about 5");
        // ⌊nγ⌋ taken low when nγ is within rounding of an integer: a larger tail, the safe side
        auto floor = static_cast<int64_t>(std::floor(double(n) * gamma * (1 - 1e-15)));
        double a = std::exp(log_upper_tail(n, floor, log_beta, log_rest)) * (1 + 1e-9);
        best = std::max(best, a);
        double chernoff = std::exp(-double(n) * divergence);
        if (chernoff <= best) return std::min(best, 1.0);
    }
}

DpParameters dp_parameters(double epsilon, double delta) {
    if (!(epsilon > 0) || !std::isfinite(epsilon))
        fail(ErrorKind::InvalidParameter, "epsilon must be positive and finite, got " + number_text(epsilon));
    if (!(delta > 0 && delta < 1))
        fail(ErrorKind::InvalidParameter, "delta must be in (0, 1), got " + number_text(delta));
    if (epsilon > kMaxDpEpsilon)
        fail(ErrorKind::InvalidParameter,
             "epsilon must be at most " + number_text(kMaxDpEpsilon) +
                 " (beyond it 1 - e^-epsilon rounds to 1: SafePub would sample every row), got " +
                 number_text(epsilon));
    DpParameters p{};
    p.beta = round_down(-std::expm1(-epsilon));                                // 1 − e^(−ε)
    p.gamma = round_down((std::expm1(epsilon) + p.beta) / std::exp(epsilon));  // (e^ε − 1 + β)/e^ε
    if (p.beta <= 0)                                                           // a subnormal epsilon
        fail(ErrorKind::InvalidParameter,
             "epsilon " + number_text(epsilon) + " is too small: the sampling probability 1 - e^-epsilon rounds to 0");
    if (!(p.gamma > p.beta))
        fail(ErrorKind::InvalidParameter, "epsilon " + number_text(epsilon) +
                                              " is too large: SafePub's relation needs 1 - e^-epsilon below (e^epsilon "
                                              "- 1 + beta)/e^epsilon in double precision");
    // δ(k) does not grow with k: double k until δ(k) ≤ δ, then bisect.
    int64_t hi = 1;
    double at_hi = safepub_delta(p.beta, p.gamma, hi);
    while (at_hi > delta) {
        if (hi >= kMaxDpK) fail(ErrorKind::ProgramLimit, "no k up to 2^40 reaches delta " + number_text(delta));
        hi *= 2;
        at_hi = safepub_delta(p.beta, p.gamma, hi);
    }
    int64_t lo = hi / 2;  // δ(lo) > δ, or lo = 0
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        double d = safepub_delta(p.beta, p.gamma, mid);
        if (d <= delta) hi = mid, at_hi = d;
        else lo = mid;
    }
    p.k = hi;
    p.delta_k = at_hi;
    return p;
}

}  // namespace privrisk
