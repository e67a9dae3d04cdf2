#!/usr/bin/env python3
"""Independent reference for dp_parameters (docs/dp.md; SafePub, Bild, Kuhn, Prasser,
PoPETs 2018): beta = 1 - e^-eps, gamma = (e^eps - 1 + beta) / e^eps,
n_m = ceil(k / gamma - 1), a_n = sum_{j > floor(n gamma)}^{n} C(n, j) beta^j (1 - beta)^(n - j),
delta(k) = max_{n >= n_m} a_n, k = the smallest k with delta(k) <= delta.
Computed with 60-digit decimals and exact binomial coefficients, summing every
term (no log-space shortcut), over n up to a bound past which the Chernoff bound
c_n = exp(-n (gamma ln(gamma / beta) - (gamma - beta))) is below the maximum found.

Usage: test/reference/safepub_parameters.py  (prints eps, delta, beta, k, delta(k), delta(k-1))
"""
from decimal import Decimal, getcontext
from math import comb

getcontext().prec = 60


def params(eps):
    e = Decimal(eps)
    beta = 1 - (-e).exp()
    gamma = (e.exp() - 1 + beta) / e.exp()
    return beta, gamma


def a_n(n, beta, gamma):
    lo = int((n * gamma).to_integral_value(rounding="ROUND_FLOOR"))
    return sum(comb(n, j) * beta ** j * (1 - beta) ** (n - j) for j in range(lo + 1, n + 1))


def c_n(n, beta, gamma):
    return (-(n * (gamma * (gamma / beta).ln() - (gamma - beta)))).exp()


def delta_of(k, beta, gamma):
    n = max(1, int((k / gamma - 1).to_integral_value(rounding="ROUND_CEILING")))
    best = Decimal(0)
    while True:
        a = a_n(n, beta, gamma)
        best = max(best, a)
        if c_n(n, beta, gamma) <= best:
            return best
        n += 1


def k_of(eps, delta):
    beta, gamma = params(eps)
    k = 1
    while delta_of(k, beta, gamma) > Decimal(delta):
        k += 1
    return k


if __name__ == "__main__":
    for eps, delta in [(1.0, 1e-3), (1.0, 1e-5), (2.0, 1e-5), (0.5, 1e-3), (1.5, 1e-4)]:
        beta, gamma = params(eps)
        k = k_of(eps, delta)
        print(eps, delta, f"{beta:.17g}", k, f"{delta_of(k, beta, gamma):.12e}",
              f"{delta_of(k - 1, beta, gamma):.12e}" if k > 1 else "-")
