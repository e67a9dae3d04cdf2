// Sums non-negative doubles exactly in 128-bit fixed point, so a total does not
// depend on the order of its terms: a measure summed over the classes of a
// release is the same bit for bit in a serial and a parallel plan, without
// sorting the classes first.
#pragma once

#include <cmath>
#include <cstdint>

#include "common/error.hpp"

namespace privrisk {

// FracBits: fractional bits kept. Each term is truncated to that resolution
// (deterministically); the caller keeps Σ term·times below 2^(128 − FracBits).
template <int FracBits>
class ExactSum {
public:
    void add(double term, int64_t times = 1) {
        if (!(term >= 0) || !std::isfinite(term)) fail(ErrorKind::Internal, "exact sum of a negative or infinite term");
        auto fixed = static_cast<unsigned __int128>(std::ldexp(term, FracBits));
        unsigned __int128 product;
        if (__builtin_mul_overflow(fixed, static_cast<unsigned __int128>(times), &product) ||
            __builtin_add_overflow(total_, product, &total_))
            fail(ErrorKind::ProgramLimit, "a measure's sum overflows 128 bits");
    }
    void merge(const ExactSum& other) {
        if (__builtin_add_overflow(total_, other.total_, &total_))
            fail(ErrorKind::ProgramLimit, "a measure's sum overflows 128 bits");
    }
    long double value() const { return std::ldexp(static_cast<long double>(total_), -FracBits); }

private:
    unsigned __int128 total_ = 0;
};

}  // namespace privrisk
