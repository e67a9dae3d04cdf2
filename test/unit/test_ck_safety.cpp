// (c,k)-safety against [MKMGH07]'s exact vectors (§4.5-4.8) and a brute-force
// posterior over every world consistent with small random bucketizations.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <cmath>
#include <random>

#include "ck/ck_safety.hpp"
#include "common/error.hpp"
#include "measures/measures.hpp"

using namespace privrisk;

namespace {

BucketCounts bucket(std::vector<int64_t> counts) {
    std::sort(counts.rbegin(), counts.rend());
    int64_t n = 0;
    for (auto c : counts) n += c;
    return BucketCounts{n, counts};
}

std::vector<double> curve(const std::vector<BucketCounts>& buckets, int kmax) {
    CkKnapsack k(kmax);
    for (auto& b : buckets) k.add_bucket(b);
    return k.curve();
}

void expect_curve(const std::vector<double>& got, const std::vector<double>& want) {
    ASSERT_GE(got.size(), want.size());
    for (std::size_t i = 0; i < want.size(); ++i) EXPECT_NEAR(got[i], want[i], 1e-12) << "k = " << i;
}

// --- brute force: every assignment of each bucket's multiset to its members ---
struct World {
    std::vector<int> value;  // per person
};

std::vector<World> worlds(const std::vector<std::vector<int>>& bucket_values) {
    std::vector<std::vector<std::vector<int>>> per_bucket;
    for (auto v : bucket_values) {
        std::sort(v.begin(), v.end());
        std::vector<std::vector<int>> perms;
        do perms.push_back(v);
        while (std::next_permutation(v.begin(), v.end()));
        per_bucket.push_back(perms);
    }
    std::vector<World> out{World{}};
    for (auto& perms : per_bucket) {
        std::vector<World> next;
        for (auto& w : out)
            for (auto& p : perms) {
                World x = w;
                x.value.insert(x.value.end(), p.begin(), p.end());
                next.push_back(x);
            }
        out.swap(next);
    }
    return out;
}

// max over atoms A and k antecedent atoms (repetition allowed) of Pr(A | B ∧ ∧(A_i → A)).
double brute_md(const std::vector<std::vector<int>>& bucket_values, int domain, int k) {
    auto ws = worlds(bucket_values);
    int people = static_cast<int>(ws[0].value.size());
    int atoms = people * domain;  // atom (p, s) = p * domain + s
    std::vector<uint64_t> mask(ws.size(), 0);
    for (std::size_t w = 0; w < ws.size(); ++w)
        for (int p = 0; p < people; ++p) mask[w] |= uint64_t(1) << (p * domain + ws[w].value[p]);
    double best = 0;
    std::vector<int> pick(k, 0);
    for (int a = 0; a < atoms; ++a) {
        uint64_t abit = uint64_t(1) << a;
        double with_a = 0;
        for (auto m : mask) with_a += (m & abit) != 0;
        if (with_a == 0) continue;
        // all multisets of k antecedents (non-decreasing indices)
        std::fill(pick.begin(), pick.end(), 0);
        while (true) {
            uint64_t u = abit;
            for (int x : pick) u |= uint64_t(1) << x;
            double none = 0;
            for (auto m : mask) none += (m & u) == 0;
            best = std::max(best, with_a / (with_a + none));
            int i = k - 1;
            while (i >= 0 && pick[i] == atoms - 1) --i;
            if (i < 0) break;
            ++pick[i];
            for (int j = i + 1; j < k; ++j) pick[j] = pick[i];
        }
    }
    return best;
}

// Pr(A | B ∧ ∧(A_i → A)) for given atoms (person * domain + value), over all worlds.
double brute_probability(const std::vector<std::vector<int>>& bucket_values, int domain, int a,
                         const std::vector<int>& antecedents) {
    auto ws = worlds(bucket_values);
    double with_a = 0, none = 0;
    for (auto& w : ws) {
        bool av = w.value[a / domain] == a % domain;
        bool any = false;
        for (int x : antecedents) any |= w.value[x / domain] == x % domain;
        with_a += av;
        none += !av && !any;
    }
    return with_a / (with_a + none);
}

// A witness atom (bucket, member, value rank) as a brute-force atom; ranks order a
// bucket's values by count, descending, then by value.
int atom_of(const std::vector<std::vector<int>>& bucket_values, int domain, const CkWitness::Atom& atom) {
    int offset = 0;
    for (std::size_t b = 0; b < atom.bucket; ++b) offset += static_cast<int>(bucket_values[b].size());
    std::vector<std::pair<int, int>> ranked;  // (-count, value)
    for (int v = 0; v < domain; ++v) {
        int c = static_cast<int>(std::count(bucket_values[atom.bucket].begin(), bucket_values[atom.bucket].end(), v));
        if (c) ranked.emplace_back(-c, v);
    }
    std::sort(ranked.begin(), ranked.end());
    int value = atom.value < static_cast<int>(ranked.size()) ? ranked[atom.value].second : domain - 1;
    return (offset + atom.member) * domain + value;
}

}  // namespace

// [MKMGH07]: Figure 3's two buckets. The paper's 10/19 is wrong; 2/3 is right.
TEST(CkSafety, Figure3) {
    auto male = bucket({2, 2, 1}), female = bucket({2, 1, 1, 1});
    expect_curve(minimize1_curve(male, 3), {1, 3.0 / 5, 1.0 / 5, 0});
    expect_curve(minimize1_curve(female, 4), {1, 3.0 / 5, 3.0 / 10, 1.0 / 10, 0});
    expect_curve(curve({male, female}, 3), {2.0 / 5, 2.0 / 3, 1, 1});
    expect_curve(curve({female}, 3), {2.0 / 5, 4.0 / 7, 4.0 / 5, 1});
    expect_curve(curve({male}, 3), {2.0 / 5, 2.0 / 3, 1, 1});
    expect_curve(neg_disclosure_curve({male, female}, 3), {2.0 / 5, 2.0 / 3, 1, 1});
    expect_curve(neg_disclosure_curve({female}, 3), {2.0 / 5, 1.0 / 2, 2.0 / 3, 1});
    // The witness for k = 1: "t_Ed = LC → t_Ed = Flu" in the male bucket.
    CkWitness w = ck_worst_case({male, female}, 1);
    EXPECT_NEAR(w.max_disclosure, 2.0 / 3, 1e-12);
    EXPECT_EQ(w.target_bucket, 0u);
    ASSERT_EQ(w.antecedents.size(), 1u);
    EXPECT_EQ(w.antecedents[0].bucket, 0u);
    EXPECT_EQ(w.antecedents[0].member, 0);  // the same person as the target
    EXPECT_EQ(w.antecedents[0].value, 1);   // the second most frequent value
}

// §4.6 and §4.7: single buckets.
TEST(CkSafety, SingleBuckets) {
    expect_curve(curve({bucket({4, 2, 1, 1, 1, 1})}, 3), {2.0 / 5, 6.0 / 11, 12.0 / 17, 28.0 / 33});
    expect_curve(neg_disclosure_curve({bucket({4, 2, 1, 1, 1, 1})}, 3), {2.0 / 5, 1.0 / 2, 4.0 / 7, 2.0 / 3});
    expect_curve(curve({bucket({3, 1, 1})}, 4), {3.0 / 5, 6.0 / 7, 1, 1, 1});
    expect_curve(neg_disclosure_curve({bucket({3, 1, 1})}, 4), {3.0 / 5, 3.0 / 4, 1, 1, 1});
    expect_curve(curve({bucket({1, 1})}, 4), {1.0 / 2, 1, 1, 1, 1});
    expect_curve(curve({bucket({1})}, 3), {1, 1, 1, 1});  // a single-row bucket discloses everything
    expect_curve(curve({bucket({2, 2, 2})}, 4), {1.0 / 3, 1.0 / 2, 1, 1, 1});
    expect_curve(curve({bucket({4, 2, 1, 1, 1})}, 4), {4.0 / 9, 8.0 / 13, 56.0 / 71, 56.0 / 61, 1});
    expect_curve(neg_disclosure_curve({bucket({4, 2, 1, 1, 1})}, 4), {4.0 / 9, 4.0 / 7, 2.0 / 3, 4.0 / 5, 1});
    expect_curve(curve({bucket({1, 1, 1, 1})}, 3), {1.0 / 4, 1.0 / 3, 1.0 / 2, 1});
    expect_curve(curve({bucket({2, 1, 1, 1})}, 1), {2.0 / 5, 4.0 / 7});
    expect_curve(curve({bucket({1, 1})}, 3), {1.0 / 2, 1, 1, 1});  // size ≤ k+1: no division by zero
}

// §4.8: the whole Adult table as one bucket (occupation counts).
TEST(CkSafety, AdultAsOneBucket) {
    auto adult = bucket({6020, 6008, 5984, 5540, 5408, 4808, 2970, 2316, 2046, 1480, 1420, 976, 232, 14});
    std::vector<double> want = {3010.0 / 22611, 430.0 / 2801, 602.0 / 3323, 602.0 / 2769, 3010.0 / 11141,
                                3010.0 / 8737,  215.0 / 518,  1505.0 / 3047, 3010.0 / 5071, 3010.0 / 4331,
                                3010.0 / 3621,  3010.0 / 3133, 430.0 / 431, 1};
    expect_curve(curve({adult}, 13), want);
    expect_curve(neg_disclosure_curve({adult}, 13), want);
}

// The dynamic program against brute force on thousands of random tiny bucketizations,
// and the witness really reaches the maximum.
TEST(CkSafety, AgreesWithBruteForce) {
    std::mt19937 rng(43);
    int checked = 0;
    for (int round = 0; round < 2500; ++round) {
        int nbuckets = 1 + rng() % 3, domain = 1 + rng() % 3, people = 0;
        std::vector<std::vector<int>> values;
        std::vector<BucketCounts> buckets;
        for (int b = 0; b < nbuckets && people < 6; ++b) {
            int size = 1 + rng() % std::min(4, 6 - people);
            std::vector<int> v;
            std::vector<int64_t> counts(domain, 0);
            for (int i = 0; i < size; ++i) {
                int s = rng() % domain;
                v.push_back(s);
                ++counts[s];
            }
            counts.erase(std::remove(counts.begin(), counts.end(), 0), counts.end());
            values.push_back(v);
            buckets.push_back(bucket(counts));
            people += size;
        }
        int k = rng() % 4;
        if (std::pow(people * domain, k) > 20000) k = 1;
        double brute = brute_md(values, domain, k);
        auto md = curve(buckets, k);
        ASSERT_NEAR(md[k], brute, 1e-12) << "round " << round;
        // The witness: its own implications give that disclosure under brute force.
        CkWitness w = ck_worst_case(buckets, k);
        EXPECT_NEAR(w.max_disclosure, brute, 1e-12);
        EXPECT_LE(static_cast<int>(w.antecedents.size()), k);
        std::vector<int> antecedents;
        for (auto& atom : w.antecedents) antecedents.push_back(atom_of(values, domain, atom));
        EXPECT_NEAR(brute_probability(values, domain, atom_of(values, domain, w.target), antecedents), brute, 1e-12)
            << "round " << round;
        ++checked;
    }
    EXPECT_EQ(checked, 2500);
}

// Theorem 14: merging buckets never raises the maximum disclosure; combining two
// partial states equals adding every bucket to one.
TEST(CkSafety, MergingBucketsNeverRaisesDisclosureAndCombineIsExact) {
    std::mt19937 rng(47);
    for (int round = 0; round < 500; ++round) {
        std::vector<std::vector<int64_t>> raw;
        for (int b = 0, nb = 2 + rng() % 5; b < nb; ++b) {
            std::vector<int64_t> c;
            for (int v = 0, nv = 1 + rng() % 4; v < nv; ++v) c.push_back(1 + rng() % 6);
            raw.push_back(c);
        }
        int kmax = 1 + rng() % 6;
        std::vector<BucketCounts> buckets;
        for (auto& c : raw) buckets.push_back(bucket(c));
        auto before = curve(buckets, kmax);
        // merge bucket 0 and 1 value-wise (value ids by position)
        std::vector<int64_t> merged(std::max(raw[0].size(), raw[1].size()), 0);
        for (std::size_t i = 0; i < raw[0].size(); ++i) merged[i] += raw[0][i];
        for (std::size_t i = 0; i < raw[1].size(); ++i) merged[i] += raw[1][i];
        std::vector<BucketCounts> coarser{bucket(merged)};
        for (std::size_t b = 2; b < raw.size(); ++b) coarser.push_back(bucket(raw[b]));
        auto after = curve(coarser, kmax);
        for (int k = 0; k <= kmax; ++k) EXPECT_LE(after[k], before[k] + 1e-12);
        // Combining partial states in any order is bit-identical to one sequential pass.
        CkKnapsack a(kmax), b(kmax);
        for (std::size_t i = 0; i < buckets.size(); ++i) (i % 2 ? a : b).add_bucket(buckets[i]);
        b.merge(a);
        EXPECT_EQ(b.curve(), before);
        std::vector<BucketCounts> reversed(buckets.rbegin(), buckets.rend());
        EXPECT_EQ(curve(reversed, kmax), before);
        // monotone in k, and MDneg ≤ MD
        auto neg = neg_disclosure_curve(buckets, kmax);
        for (int k = 0; k <= kmax; ++k) {
            EXPECT_LE(neg[k], before[k] + 1e-12);
            if (k) {
                EXPECT_GE(before[k], before[k - 1]);
            }
        }
    }
}

// audit()'s curve over a contingency table (identical classes stored once, with
// a multiplicity, and cut at kmax+1 copies) equals adding every class as a bucket.
TEST(CkSafety, CurveOfAContingencyTableEqualsItsBuckets) {
    std::mt19937 rng(53);
    for (int round = 0; round < 500; ++round) {
        int kmax = 1 + rng() % 5;
        ContingencyTable table;
        const std::vector<uint32_t> ids{table.intern(Value("a")), table.intern(Value("b")), table.intern(Value())};
        std::vector<BucketCounts> buckets;
        for (int c = 0, nc = 1 + rng() % 5; c < nc; ++c) {
            std::vector<ContingencyTable::Pair> pairs;
            std::vector<int64_t> counts;
            for (int v = 0, nv = 1 + rng() % 3; v < nv; ++v) {
                int64_t n = 1 + rng() % 4;
                pairs.emplace_back(ids[v], n);
                counts.push_back(n);
            }
            int64_t multiplicity = 1 + rng() % (kmax + 3);
            table.add_class(pairs, multiplicity);
            for (int64_t m = 0; m < multiplicity; ++m) buckets.push_back(bucket(counts));
        }
        expect_curve(ck_disclosure_curve(table, kmax), curve(buckets, kmax));
    }
}

TEST(CkSafety, BadInput) {
    EXPECT_THROW(check_ck_k(-1), Error);
    EXPECT_THROW(check_ck_k(kMaxCkK + 1), Error);
    EXPECT_NO_THROW(check_ck_k(0));
    CkKnapsack a(3), b(4);
    EXPECT_THROW(a.merge(b), Error);
}
