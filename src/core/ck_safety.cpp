#include "ck_safety.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "error.hpp"
#include "no_postgres.hpp"

namespace privrisk {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// Product where an infeasible state (∞) stays infeasible, even times 0.
inline double times(double a, double b) { return (std::isinf(a) || std::isinf(b)) ? kInf : a * b; }

// Corrected Minimize1 (digest 004 §3.3) for one bucket, memoized on (i, kcap, krem).
class Minimize1 {
public:
    Minimize1(const BucketCounts& b, int hmax) : n_(b.size), prefix_(hmax + 2, 0) {
        for (int m = 1; m <= hmax + 1; ++m)
            prefix_[m] = prefix_[m - 1] + (m - 1 < static_cast<int>(b.sorted.size()) ? b.sorted[m - 1] : 0);
    }
    double value(int64_t i, int kcap, int krem) {
        if (krem == 0 || i >= n_) return 1.0;  // remaining atoms can only repeat earlier ones: factor 1
        uint64_t key = (uint64_t(i) << 32) | (uint64_t(kcap) << 16) | uint64_t(krem);
        auto it = memo_.find(key);
        if (it != memo_.end()) return it->second.first;
        double best = 1.0;
        int best_k = 0;
        for (int ki = 1; ki <= std::min(kcap, krem); ++ki) {
            int64_t num = n_ - i - prefix_[ki];  // person i excluded from the top ki values
            if (num <= 0) {
                best = 0;
                best_k = ki;
                break;  // the product is 0: nothing does better
            }
            double p = static_cast<double>(num) / static_cast<double>(n_ - i) * value(i + 1, ki, krem - ki);
            if (p < best) best = p, best_k = ki;
        }
        memo_.emplace(key, std::make_pair(best, best_k));
        return best;
    }
    // The argmin shape of value(0, h, h): atoms per distinct person.
    std::vector<int> shape(int h) {
        value(0, h, h);
        std::vector<int> out;
        int64_t i = 0;
        int kcap = h, krem = h;
        while (krem > 0 && i < n_) {
            auto it = memo_.find((uint64_t(i) << 32) | (uint64_t(kcap) << 16) | uint64_t(krem));
            int ki = it->second.second;
            if (ki == 0) break;
            out.push_back(ki);
            if (static_cast<int64_t>(prefix_[ki]) >= n_ - i) break;  // a zero factor ends the product
            kcap = ki;
            krem -= ki;
            ++i;
        }
        return out;
    }

private:
    int64_t n_;
    std::vector<int64_t> prefix_;  // prefix_[m] = Σ_{j<m} n_b(s^j)
    std::unordered_map<uint64_t, std::pair<double, int>> memo_;
};

}  // namespace

void check_ck_k(long k) {
    if (k < 0 || k > kMaxCkK)
        fail(ErrorKind::InvalidParameter,
             "k must be between 0 and " + std::to_string(kMaxCkK) + ", got " + std::to_string(k));
}

std::vector<double> minimize1_curve(const BucketCounts& b, int hmax) {
    Minimize1 m(b, hmax);
    std::vector<double> f(hmax + 1);
    for (int h = 0; h <= hmax; ++h) f[h] = m.value(0, h, h);
    return f;
}

std::vector<int> minimize1_shape(const BucketCounts& b, int h) { return Minimize1(b, h).shape(h); }

namespace {
constexpr double kScale = 70368744177664.0;  // 2^46
using Log = CkKnapsack::Log;

// The product of two values, in the log domain.
inline Log log_times(Log a, Log b) {
    if (a == CkKnapsack::kInfeasible || b == CkKnapsack::kInfeasible) return CkKnapsack::kInfeasible;
    if (a == CkKnapsack::kZero || b == CkKnapsack::kZero) return CkKnapsack::kZero;
    return a + b;  // |a|, |b| < 2^61 by the bounds on k and counts
}
}  // namespace

CkKnapsack::Log CkKnapsack::to_log(double v) {
    if (std::isinf(v)) return kInfeasible;
    if (v <= 0) return kZero;
    return std::llround(-std::log(v) * kScale);
}

CkKnapsack::CkKnapsack(int kmax) : kmax_(kmax), t0_(kmax + 1, kInfeasible), t1_(kmax + 1, kInfeasible) { t0_[0] = 0; }

CkKnapsack CkKnapsack::from_state(int kmax, std::vector<Log> t0, std::vector<Log> t1, int64_t buckets) {
    CkKnapsack k(kmax);
    k.t0_ = std::move(t0);
    k.t1_ = std::move(t1);
    k.buckets_ = buckets;
    return k;
}

void CkKnapsack::add_bucket(const std::vector<double>& f, double top_ratio, int64_t times) {
    std::vector<Log> lf(kmax_ + 2), lg(kmax_ + 1);
    for (int t = 0; t <= kmax_ + 1; ++t) lf[t] = to_log(f[t]);
    Log lr = to_log(top_ratio);
    for (int t = 0; t <= kmax_; ++t) lg[t] = log_times(lf[t + 1], lr);  // A and t antecedents in this bucket
    // More than kmax+1 identical buckets cannot all receive atoms: the rest change nothing.
    for (int64_t copy = 0; copy < std::min<int64_t>(times, kmax_ + 1); ++copy) {
        std::vector<Log> n0(kmax_ + 1, kInfeasible), n1(kmax_ + 1, kInfeasible);
        for (int h = 0; h <= kmax_; ++h)
            for (int t = 0; t <= h; ++t) {
                n0[h] = std::max(n0[h], log_times(t0_[h - t], lf[t]));
                n1[h] = std::max({n1[h], log_times(t1_[h - t], lf[t]), log_times(t0_[h - t], lg[t])});
            }
        t0_.swap(n0);
        t1_.swap(n1);
    }
    buckets_ += times;
}

void CkKnapsack::add_bucket(const BucketCounts& b) {
    add_bucket(minimize1_curve(b, kmax_ + 1), static_cast<double>(b.size) / static_cast<double>(b.sorted.at(0)));
}

void CkKnapsack::merge(const CkKnapsack& other) {
    if (other.kmax_ != kmax_) fail(ErrorKind::InvalidParameter, "k must be the same on every row");
    std::vector<Log> n0(kmax_ + 1, kInfeasible), n1(kmax_ + 1, kInfeasible);
    for (int h = 0; h <= kmax_; ++h)
        for (int a = 0; a <= h; ++a) {
            n0[h] = std::max(n0[h], log_times(t0_[a], other.t0_[h - a]));
            n1[h] = std::max({n1[h], log_times(t1_[a], other.t0_[h - a]), log_times(t0_[a], other.t1_[h - a])});
        }
    t0_.swap(n0);
    t1_.swap(n1);
    buckets_ += other.buckets_;
}

std::vector<double> CkKnapsack::curve() const {
    // k implications means at most k distinct ones (digest 004 G6): the curve never decreases.
    std::vector<double> md(kmax_ + 1);
    double running = 0;
    for (int h = 0; h <= kmax_; ++h) {
        double v = t1_[h] == kInfeasible ? 0.0
                   : t1_[h] == kZero     ? 1.0
                                         : 1.0 / (1.0 + std::exp(-static_cast<double>(t1_[h]) / kScale));
        running = std::max(running, v);
        md[h] = running;
    }
    return md;
}

const std::vector<double>& Minimize1Cache::curve(const BucketCounts& b) {
    std::vector<int64_t> key;
    key.reserve(hmax_ + 1);
    key.push_back(b.size);
    for (int j = 0; j < hmax_ && j < static_cast<int>(b.sorted.size()); ++j) key.push_back(b.sorted[j]);
    auto it = cache_.find(key);
    if (it == cache_.end()) it = cache_.emplace(std::move(key), minimize1_curve(b, hmax_)).first;
    return it->second;
}

std::vector<double> neg_bucket_curve(const BucketCounts& b, int kmax) {
    std::vector<double> md(kmax + 1);
    int64_t excluded = 0;
    for (int k = 0; k <= kmax; ++k) {
        if (k >= 1 && k < static_cast<int>(b.sorted.size())) excluded += b.sorted[k];
        md[k] = static_cast<double>(b.sorted[0]) / static_cast<double>(b.size - excluded);
    }
    return md;
}

std::vector<double> neg_disclosure_curve(const std::vector<BucketCounts>& buckets, int kmax) {
    std::vector<double> md(kmax + 1, 0.0);
    for (const auto& b : buckets) {
        auto c = neg_bucket_curve(b, kmax);
        for (int k = 0; k <= kmax; ++k) md[k] = std::max(md[k], c[k]);
    }
    return md;
}

CkWitness ck_worst_case(const std::vector<BucketCounts>& buckets, int k) {
    if (buckets.empty()) fail(ErrorKind::InvalidParameter, "no buckets");
    // The knapsack of §3.5 with back-pointers: (t, placed) per bucket and state.
    struct Step {
        int t;
        bool placed_here;
        int from_h;
        bool from_placed;
    };
    std::size_t nb = buckets.size();
    std::vector<std::vector<Step>> back0(nb, std::vector<Step>(k + 1)), back1(nb, std::vector<Step>(k + 1));
    std::vector<double> t0(k + 1, kInf), t1(k + 1, kInf);
    t0[0] = 1.0;
    for (std::size_t b = 0; b < nb; ++b) {
        auto f = minimize1_curve(buckets[b], k + 1);
        double ratio = static_cast<double>(buckets[b].size) / static_cast<double>(buckets[b].sorted.at(0));
        std::vector<double> n0(k + 1, kInf), n1(k + 1, kInf);
        for (int h = 0; h <= k; ++h)
            for (int t = 0; t <= h; ++t) {
                double v0 = times(t0[h - t], f[t]);
                if (v0 < n0[h]) n0[h] = v0, back0[b][h] = Step{t, false, h - t, false};
                double v1 = times(t1[h - t], f[t]);
                if (v1 < n1[h]) n1[h] = v1, back1[b][h] = Step{t, false, h - t, true};
                double v2 = times(t0[h - t], f[t + 1] * ratio);
                if (v2 < n1[h]) n1[h] = v2, back1[b][h] = Step{t, true, h - t, false};
            }
        t0.swap(n0);
        t1.swap(n1);
    }
    CkWitness w{};
    // The best h' ≤ k (at most k implications), preferring the fewest.
    int best_h = 0;
    for (int h = 0; h <= k; ++h)
        if (t1[h] < t1[best_h]) best_h = h;
    w.r_min = t1[best_h];
    w.max_disclosure = 1.0 / (1.0 + w.r_min);
    // Walk back: atoms per bucket.
    std::vector<std::pair<std::size_t, int>> atoms_in;  // (bucket, atoms including the target's)
    int h = best_h;
    bool placed = true;
    for (std::size_t b = nb; b-- > 0;) {
        const Step& s = placed ? back1[b][h] : back0[b][h];
        if (placed && s.placed_here) {
            w.target_bucket = b;
            atoms_in.emplace_back(b, s.t + 1);
        } else if (s.t > 0) {
            atoms_in.emplace_back(b, s.t);
        }
        h = s.from_h;
        placed = s.from_placed;
    }
    w.target = CkWitness::Atom{w.target_bucket, 0, 0};
    for (auto& [b, count] : atoms_in) {
        auto shape = minimize1_shape(buckets[b], count);
        for (std::size_t person = 0; person < shape.size(); ++person)
            for (int j = 0; j < shape[person]; ++j) {
                if (b == w.target_bucket && person == 0 && j == 0) continue;  // the target itself
                w.antecedents.push_back(CkWitness::Atom{b, static_cast<int>(person), j});
            }
    }
    // Fewer distinct atoms than k (a zero factor came early, or atoms would only repeat):
    // repeating an implication changes nothing.
    while (static_cast<int>(w.antecedents.size()) < k && !w.antecedents.empty())
        w.antecedents.push_back(w.antecedents.back());
    if (static_cast<int>(w.antecedents.size()) > k) w.antecedents.resize(k);
    return w;
}

}  // namespace privrisk
