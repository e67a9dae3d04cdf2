// (c,k)-safety: disclosure against an attacker who knows k simple implications
// (Martin, Kifer, Machanavajjhala, Gehrke, Halpern, ICDE 2007; [MKMGH07]).
// A bucket is the sensitive histogram of one class; everything depends only on
// each bucket's size and its counts sorted in descending order.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

namespace privrisk {

class ContingencyTable;

// Largest k accepted: the per-bucket dynamic program costs O(k^3) and the
// knapsack state O(k).
constexpr int kMaxCkK = 200;
// The k up to which audit() reports the (c,k) curve when not told (ck_k).
constexpr int kDefaultCkK = 10;
void check_ck_k(long k);

// A bucket as the algorithms see it: its size and its counts, descending.
struct BucketCounts {
    int64_t size;
    std::vector<int64_t> sorted;  // descending; values beyond are zero
};

// f_b(h) = Minimize1(b, 0, h, h) for h = 0..hmax ([MKMGH07], corrected):
// the least probability that h atoms about members of b are all false.
std::vector<double> minimize1_curve(const BucketCounts& b, int hmax);

// The shape that reaches f_b(h): how many atoms each distinct member gets.
std::vector<int> minimize1_shape(const BucketCounts& b, int h);

// The across-bucket two-state knapsack ([MKMGH07]). T0[h]: least product
// over the buckets seen with h antecedent atoms and the target not yet placed;
// T1[h]: the same with the target placed. MD_h = 1 / (1 + T1[h]).
//
// Products are kept as fixed-point logarithms: L(v) = −ln(v)·2^46 rounded to an
// int64, so a product is an integer sum and a minimum a maximum. Integer sums do
// not depend on the order of their terms, so serial and parallel plans (which
// see buckets in different orders) give bit-identical curves. Relative error of
// a value: below 1e-12 for k ≤ 200.
class CkKnapsack {
public:
    using Log = int64_t;
    static constexpr Log kZero = INT64_MAX;        // L(0): the product is 0 (disclosure 1)
    static constexpr Log kInfeasible = INT64_MIN;  // no way to place the atoms (yet)
    static Log to_log(double v);

    explicit CkKnapsack(int kmax);
    void add_bucket(const std::vector<double>& f, double top_ratio,
                    int64_t times = 1);  // f = minimize1_curve(b, kmax+1)
    void add_bucket(const BucketCounts& b);
    void merge(const CkKnapsack& other);  // buckets of two disjoint parts of a release
    int kmax() const { return kmax_; }
    std::vector<double> curve() const;  // MD_0 .. MD_kmax (0 when no bucket)
    // Raw state, for the SQL aggregate's int8[] state.
    const std::vector<Log>& t0() const { return t0_; }
    const std::vector<Log>& t1() const { return t1_; }
    static CkKnapsack from_state(int kmax, std::vector<Log> t0, std::vector<Log> t1, int64_t buckets);
    int64_t buckets() const { return buckets_; }

private:
    int kmax_;
    std::vector<Log> t0_, t1_;
    int64_t buckets_ = 0;
};

// Memoized f_b by bucket signature (many classes share one), with its
// log-domain form ready for the knapsack.
class Minimize1Cache {
public:
    struct Entry {
        std::vector<double> f;            // f_b(0..hmax)
        std::vector<CkKnapsack::Log> lf;  // L(f_b(t)), t = 0..hmax
        std::vector<CkKnapsack::Log> lg;  // L(f_b(t+1) · n_b / n_b(s^0)), t = 0..hmax−1
    };
    explicit Minimize1Cache(int hmax) : hmax_(hmax) {}
    const std::vector<double>& curve(const BucketCounts& b) { return entry(b).f; }
    const Entry& entry(const BucketCounts& b);

private:
    struct KeyHash {
        std::size_t operator()(const std::vector<int64_t>& k) const;
    };
    int hmax_;
    std::unordered_map<std::vector<int64_t>, Entry, KeyHash> cache_;  // key: size, then the top hmax counts
    std::vector<int64_t> key_;                                        // scratch
};

// One knapsack step on a raw state (t0, t1 of kmax+1 entries each), in place:
// what CkKnapsack::add_bucket does, without copies. Returns false when nothing
// can change any more (every T1 entry is 0: disclosure 1 at every k).
bool ck_step(CkKnapsack::Log* t0, CkKnapsack::Log* t1, int kmax, const Minimize1Cache::Entry& e);
bool ck_saturated(const CkKnapsack::Log* t1, int kmax);

// MD_0 .. MD_kmax over the classes of a table, each class a bucket (docs/measures.md:
// ck_disclosure_curve of audit()); the early exit of §3.6 applies.
std::vector<double> ck_disclosure_curve(const ContingencyTable& table, int kmax);

// The negated-atom attacker (ℓ-diversity's): MDneg_k = max_b n_b(s^0) / (n_b − Σ_{j=1..k} n_b(s^j)) (§3.7).
std::vector<double> neg_disclosure_curve(const std::vector<BucketCounts>& buckets, int kmax);
std::vector<double> neg_bucket_curve(const BucketCounts& b, int kmax);

// The worst k implications: which buckets hold the target and the antecedents.
struct CkWitness {
    double max_disclosure;
    double r_min;
    std::size_t target_bucket;  // index into the buckets given
    struct Atom {
        std::size_t bucket;
        int member;  // ordinal of the person inside the bucket, 0-based
        int value;   // rank of the value in the bucket, 0 = most frequent
    };
    Atom target;
    std::vector<Atom> antecedents;  // k atoms; each gives "antecedent → target"
};
CkWitness ck_worst_case(const std::vector<BucketCounts>& buckets, int k);

}  // namespace privrisk
