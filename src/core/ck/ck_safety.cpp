#include "ck/ck_safety.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

#include "common/error.hpp"
#include "measures/measures.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

// Product where an infeasible state (∞) stays infeasible, even times 0.
inline double times(double a, double b) { return (std::isinf(a) || std::isinf(b)) ? kInf : a * b; }

// Corrected Minimize1 ([MKMGH07]) for one bucket, memoized on (i, kcap, krem):
// in a flat array for the usual small k (reused across buckets, reset by a
// generation stamp), in a hash map past kFlatLimit.
class Minimize1 {
public:
    static constexpr int kFlatLimit = 40;

    Minimize1(const BucketCounts& b, int hmax) : n_(b.size), hmax_(hmax), prefix_(hmax + 2, 0) {
        for (int m = 1; m <= hmax + 1; ++m)
            prefix_[m] = prefix_[m - 1] + (m - 1 < static_cast<int>(b.sorted.size()) ? b.sorted[m - 1] : 0);
        if (hmax <= kFlatLimit) {
            Flat& f = flat();
            std::size_t states = std::size_t(hmax + 1) * (hmax + 1) * (hmax + 1);
            if (f.stamp.size() < states) f.stamp.assign(states, 0), f.value.resize(states), f.arg.resize(states);
            if (++f.generation == 0) std::fill(f.stamp.begin(), f.stamp.end(), 0), f.generation = 1;
        }
    }
    double value(int64_t i, int kcap, int krem) {
        if (krem == 0 || i >= n_) return 1.0;  // remaining atoms can only repeat earlier ones: factor 1
        double* cached_value;
        int* cached_arg;
        if (!lookup(i, kcap, krem, &cached_value, &cached_arg)) return *cached_value;
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
        lookup(i, kcap, krem, &cached_value, &cached_arg);  // the slot may have moved (hash map)
        *cached_value = best;
        *cached_arg = best_k;
        return best;
    }
    // The argmin shape of value(0, h, h): atoms per distinct person.
    std::vector<int> shape(int h) {
        value(0, h, h);
        std::vector<int> out;
        int64_t i = 0;
        int kcap = h, krem = h;
        while (krem > 0 && i < n_) {
            double* v;
            int* ki;
            lookup(i, kcap, krem, &v, &ki);
            if (*ki == 0) break;
            out.push_back(*ki);
            if (prefix_[*ki] >= n_ - i) break;  // a zero factor ends the product
            kcap = *ki;
            krem -= *ki;
            ++i;
        }
        return out;
    }

private:
    struct Flat {
        std::vector<uint32_t> stamp;
        std::vector<double> value;
        std::vector<int> arg;
        uint32_t generation = 0;
    };
    static Flat& flat() {
        static thread_local Flat f;
        return f;
    }
    // Points at the memo slot of a state; returns true when it was not filled yet.
    bool lookup(int64_t i, int kcap, int krem, double** v, int** arg) {
        if (hmax_ <= kFlatLimit) {
            Flat& f = flat();
            std::size_t at = (std::size_t(i) * (hmax_ + 1) + kcap) * (hmax_ + 1) + krem;
            *v = &f.value[at];
            *arg = &f.arg[at];
            if (f.stamp[at] == f.generation) return false;
            f.stamp[at] = f.generation;
            return true;
        }
        auto [it, inserted] = memo_.try_emplace((uint64_t(i) << 32) | (uint64_t(kcap) << 16) | uint64_t(krem), 0.0, 0);
        *v = &it->second.first;
        *arg = &it->second.second;
        return inserted;
    }

    int64_t n_;
    int hmax_;
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
    Minimize1Cache::Entry e;
    Log lr = to_log(top_ratio);
    for (int t = 0; t <= kmax_ + 1; ++t) e.lf.push_back(to_log(f[t]));
    for (int t = 0; t <= kmax_; ++t) e.lg.push_back(log_times(e.lf[t + 1], lr));  // A and t antecedents here
    // More than kmax+1 identical buckets cannot all receive atoms: the rest change nothing.
    for (int64_t copy = 0; copy < std::min<int64_t>(times, kmax_ + 1); ++copy)
        if (!ck_step(t0_.data(), t1_.data(), kmax_, e)) break;
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
    // k implications means at most k distinct ones ([MKMGH07]): the curve never decreases.
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

std::size_t Minimize1Cache::KeyHash::operator()(const std::vector<int64_t>& k) const {
    uint64_t h = 0x9e3779b97f4a7c15ull;
    for (int64_t x : k) {
        h ^= static_cast<uint64_t>(x);
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    return static_cast<std::size_t>(h);
}

const Minimize1Cache::Entry& Minimize1Cache::entry(const BucketCounts& b) {
    key_.clear();
    key_.push_back(b.size);
    for (int j = 0; j < hmax_ && j < static_cast<int>(b.sorted.size()); ++j) key_.push_back(b.sorted[j]);
    auto it = cache_.find(key_);
    if (it != cache_.end()) return it->second;
    Entry e;
    e.f = minimize1_curve(b, hmax_);
    Log lr = CkKnapsack::to_log(static_cast<double>(b.size) / static_cast<double>(b.sorted.at(0)));
    for (int t = 0; t <= hmax_; ++t) e.lf.push_back(CkKnapsack::to_log(e.f[t]));
    for (int t = 0; t < hmax_; ++t) e.lg.push_back(log_times(e.lf[t + 1], lr));
    return cache_.emplace(key_, std::move(e)).first->second;
}

bool ck_saturated(const CkKnapsack::Log* t1, int kmax) {
    for (int h = 0; h <= kmax; ++h)
        if (t1[h] != CkKnapsack::kZero) return false;
    return true;
}

bool ck_step(CkKnapsack::Log* t0, CkKnapsack::Log* t1, int kmax, const Minimize1Cache::Entry& e) {
    if (ck_saturated(t1, kmax)) return false;
    // Downward in h, so t0[h − t] and t1[h − t] still hold the previous values (t ≥ 1), and t = 0 uses f(0) = 1.
    for (int h = kmax; h >= 0; --h) {
        Log n0 = CkKnapsack::kInfeasible, n1 = CkKnapsack::kInfeasible;
        for (int t = 0; t <= h; ++t) {
            n0 = std::max(n0, log_times(t0[h - t], e.lf[t]));
            n1 = std::max({n1, log_times(t1[h - t], e.lf[t]), log_times(t0[h - t], e.lg[t])});
        }
        t0[h] = n0;
        t1[h] = n1;
    }
    return true;
}

std::vector<double> ck_disclosure_curve(const ContingencyTable& table, int kmax) {
    CkKnapsack knapsack(kmax);
    std::vector<CkKnapsack::Log> t0 = knapsack.t0(), t1 = knapsack.t1();
    Minimize1Cache cache(kmax + 1);
    BucketCounts b;
    for (const auto& cls : table.all()) {
        if (ck_saturated(t1.data(), kmax)) break;  // disclosure 1 at every k: nothing can change
        b.size = cls.size;
        b.sorted.clear();
        for (auto& [id, n] : table.counts(cls)) b.sorted.push_back(n);
        std::sort(b.sorted.rbegin(), b.sorted.rend());
        const Minimize1Cache::Entry& e = cache.entry(b);
        // More than kmax+1 identical classes cannot all receive atoms.
        for (int64_t copy = 0; copy < std::min<int64_t>(cls.multiplicity, kmax + 1); ++copy)
            if (!ck_step(t0.data(), t1.data(), kmax, e)) break;
    }
    return CkKnapsack::from_state(kmax, t0, t1, table.classes()).curve();
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
