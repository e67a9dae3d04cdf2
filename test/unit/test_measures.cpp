// Measures against the worked examples of [BS08] and Li et al. (t-closeness),
// a naive transcription of [BS08] Appendix A on random tables, and the
// property tests of [BS08]
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <random>

#include "classes/class_histogram.hpp"
#include "common/error.hpp"
#include "measures/measures.hpp"

using namespace privrisk;

namespace {

using Class = std::map<std::string, int64_t>;  // value -> count; "⊥" stands for NULL
using Table = std::vector<Class>;

std::string encode(const Class& c) {
    std::vector<std::pair<std::string, int64_t>> v;
    int64_t bottom = 0;
    for (auto& [s, n] : c)
        if (s == "⊥") bottom = n;
        else v.emplace_back(s, n);
    return encode_histogram(v, bottom);
}

ContingencyTable contingency(const Table& t) {
    ContingencyTable ct;
    for (const auto& c : t) ct.add_class(HistogramView(encode(c)));
    return ct;
}

// --- naive reference: [BS08] Appendix A, literally ---
struct MeasureReference {
    double n = 0, a_know = 0, a_acc = 0, gain = 0, t = 0, delta = 0, l_rec = 1e300;
    int64_t k = INT64_MAX;
};

MeasureReference reference(const Table& t, double c) {
    Class base;
    MeasureReference r;
    for (auto& cl : t)
        for (auto& [s, n] : cl) base[s] += n, r.n += n;
    auto entropy = [](const Class& k) {
        double m = 0, h = 0;
        for (auto& [s, n] : k) m += n;
        for (auto& [s, n] : k) h -= n / m * std::log(n / m);
        return h;
    };
    double majority = 0, hsq = 0, base_max = 0;
    for (auto& [s, n] : base) base_max = std::max(base_max, double(n));
    for (auto& cl : t) {
        double m = 0, mx = 0;
        for (auto& [s, n] : cl) m += n, mx = std::max(mx, double(n));
        double diff = 0, quot = 0;
        for (auto& [s, b] : base) {
            double cnt = cl.count(s) ? cl.at(s) : 0;
            diff += std::fabs(b / r.n - cnt / m);
            quot = cnt == 0 ? INFINITY : std::max(quot, std::fabs(std::log((cnt / m) / (b / r.n))));
        }
        diff *= 0.5;
        r.a_know += m * diff;
        r.t = std::max(r.t, diff);
        r.delta = std::max(r.delta, quot);
        majority += mx;
        hsq += m / r.n * entropy(cl);
        r.k = std::min(r.k, int64_t(m));
        std::vector<double> counts;
        for (auto& [s, n] : cl) counts.push_back(n);
        std::sort(counts.rbegin(), counts.rend());
        int l = 1;
        for (std::size_t ll = 2; ll <= counts.size(); ++ll) {
            double tail = 0;
            for (std::size_t i = ll - 1; i < counts.size(); ++i) tail += counts[i];
            if (counts[0] < c * tail) l = int(ll);
            else break;
        }
        r.l_rec = std::min(r.l_rec, double(l));
    }
    r.a_know /= r.n;
    r.a_acc = majority / r.n - base_max / r.n;
    r.gain = entropy(base) - hsq;
    return r;
}

Table random_table(std::mt19937& rng, int classes, int values, int max_count) {
    Table t;
    for (int i = 0; i < classes; ++i) {
        Class c;
        int present = 1 + rng() % values;
        for (int j = 0; j < present; ++j) {
            int v = rng() % (values + 1);
            c[v == values ? "⊥" : "s" + std::to_string(v)] += 1 + rng() % max_count;
        }
        t.push_back(c);
    }
    return t;
}

constexpr double kTol = 1e-12;

}  // namespace

// [BS08]: the section 7 XOR table, Q = (a1, a2), S = a3.
TEST(BrickellSection7, IntactSuppressedAndTrivial) {
    Table intact = {{{"00", 1}, {"01", 1}}, {{"10", 1}, {"11", 1}}, {{"00", 1}, {"01", 1}}, {{"10", 1}, {"11", 1}}};
    auto ct = contingency(intact);
    EXPECT_EQ(*k_anonymity(ct), 2);
    EXPECT_NEAR(*t_equal(ct), 0.5, kTol);
    EXPECT_TRUE(std::isinf(*delta_disclosure(ct)));
    EXPECT_EQ(*l_recursive(ct, 3), 2);
    EXPECT_NEAR(*a_know(ct), 0.5, kTol);
    EXPECT_NEAR(*a_acc(ct), 0.25, kTol);
    EXPECT_NEAR(*information_gain(ct), std::log(2.0), kTol);

    Table suppressed = {{{"00", 1}, {"01", 1}, {"10", 1}, {"11", 1}}, {{"00", 1}, {"01", 1}, {"10", 1}, {"11", 1}}};
    auto cs = contingency(suppressed);
    EXPECT_EQ(*k_anonymity(cs), 4);
    EXPECT_NEAR(*t_equal(cs), 0, kTol);
    EXPECT_NEAR(*delta_disclosure(cs), 0, kTol);
    EXPECT_EQ(*l_recursive(cs, 3), 4);
    EXPECT_NEAR(*a_know(cs), 0, kTol);
    EXPECT_NEAR(*a_acc(cs), 0, kTol);
    EXPECT_NEAR(*information_gain(cs), 0, kTol);

    auto star = contingency({{{"00", 2}, {"01", 2}, {"10", 2}, {"11", 2}}});
    EXPECT_EQ(*k_anonymity(star), 8);
    EXPECT_EQ(*l_recursive(star, 3), 4);
    EXPECT_NEAR(*a_know(star), 0, kTol);
}

// [BS08]: the rare-cancer instance.
TEST(BrickellRareCancer, MeasuresMatchThePaper) {
    auto ct = contingency({{{"cancer", 3}, {"no", 7}}, {{"cancer", 7}, {"no", 983}}});
    EXPECT_NEAR(*a_know(ct), 0.0058, kTol);
    EXPECT_NEAR(*a_acc(ct), 0, kTol);
    EXPECT_NEAR(*delta_disclosure(ct), 3.4011973816621555, kTol);
    EXPECT_NEAR(*t_equal(ct), 0.29, kTol);
    EXPECT_EQ(*k_anonymity(ct), 10);
    EXPECT_EQ(*l_recursive(ct, 3), 1);
    EXPECT_NEAR(*information_gain(ct), 0.008255133785001027, 1e-15);
}

// [BS08]: every class equals the baseline, yet not 2-diverse.
TEST(BrickellBaseline, NinetyPercentCancer) {
    auto ct = contingency({{{"cancer", 9}, {"no", 1}}, {{"cancer", 90}, {"no", 10}}});
    EXPECT_NEAR(*a_know(ct), 0, kTol);
    EXPECT_NEAR(*a_acc(ct), 0, kTol);
    EXPECT_NEAR(*information_gain(ct), 0, kTol);
    EXPECT_NEAR(*delta_disclosure(ct), 0, kTol);
    EXPECT_NEAR(*t_equal(ct), 0, kTol);
    EXPECT_EQ(*l_recursive(ct, 3), 1);
}

TEST(IdentityMeasures, RisksAndRecordsAtRisk) {
    auto ct = contingency({{{"a", 1}}, {{"a", 2}, {"b", 1}}, {{"b", 6}}});  // sizes 1, 3, 6
    EXPECT_EQ(*k_anonymity(ct), 1);
    EXPECT_NEAR(*prosecutor_risk(ct), 1.0, kTol);
    EXPECT_NEAR(*average_risk(ct), 3.0 / 10, kTol);
    EXPECT_NEAR(*records_at_risk(ct, 0.2), 4.0 / 10, kTol);      // 1/1 and 1/3 exceed 0.2
    EXPECT_NEAR(*records_at_risk(ct, 1.0 / 3), 1.0 / 10, kTol);  // strictly above 1/3
    EXPECT_NEAR(*records_at_risk(ct, 0), 1.0, kTol);
    EXPECT_THROW(records_at_risk(ct, 1.5), Error);
    EXPECT_THROW(records_at_risk(ct, -0.1), Error);
    EXPECT_THROW(records_at_risk(ct, NAN), Error);
    ContingencyTable empty;
    EXPECT_FALSE(k_anonymity(empty));
    EXPECT_FALSE(a_know(empty));
    EXPECT_FALSE(t_equal(empty));
}

TEST(LDiversity, DistinctEntropyRecursiveAndBottom) {
    std::string h = encode({{"a", 4}, {"b", 2}, {"c", 1}, {"⊥", 1}});
    EXPECT_EQ(class_l_distinct(HistogramView(h)), 4);
    double p[] = {4.0 / 8, 2.0 / 8, 1.0 / 8, 1.0 / 8}, H = 0;
    for (double x : p) H -= x * std::log(x);
    EXPECT_NEAR(class_l_entropy(HistogramView(h)), std::exp(H), kTol);
    // r = 4,2,1,1: ℓ=2: 4 < c·4; ℓ=3: 4 < c·2; ℓ=4: 4 < c·1.
    EXPECT_EQ(class_l_recursive(HistogramView(h), 3), 3);
    EXPECT_EQ(class_l_recursive(HistogramView(h), 4.5), 4);
    EXPECT_EQ(class_l_recursive(HistogramView(h), 1), 1);  // 4 < 4 fails: strict
    EXPECT_EQ(class_l_recursive(HistogramView(h), 2), 2);  // ℓ=3: 4 < 2·2 fails (strict)
    EXPECT_THROW(class_l_recursive(HistogramView(h), 0), Error);
    EXPECT_THROW(class_l_recursive(HistogramView(h), INFINITY), Error);
}

// Li, Li, Venkatasubramanian (ICDE 2007) §4.2: salaries 3k..11k; the class {3k,4k,5k}
// is 0.375 from the whole table, {6k,8k,11k} is 0.167 under the ordered distance.
TEST(TCloseness, OrderedDistanceOfTheSalaryExample) {
    auto classes = [](std::vector<int> a) {
        Class c;
        for (int x : a) c[std::to_string(x)] = 1;
        return c;
    };
    auto ct = contingency({classes({3, 4, 5}), classes({6, 8, 11}), classes({7, 9, 10})});
    EXPECT_NEAR(*t_ordered(ct), 0.375, kTol);  // numeric order: "10","11" after "9"
    // With the rest in one class (distance 1/12), the maximum is {6k,8k,11k}'s 1/6.
    auto other = contingency({classes({6, 8, 11}), classes({3, 4, 5, 7, 9, 10})});
    EXPECT_NEAR(*t_ordered(other), 1.0 / 6, kTol);
    EXPECT_NEAR(*t_equal(ct), 2.0 / 3, kTol);  // a third of the values: ½(3·2/9 + 6·1/9)
}

// Hierarchical EMD against an independent formula: on a tree whose leaf distance is
// level(LCA)/H, EMD = Σ over non-root nodes |mass difference below the node| / (2H).
TEST(TCloseness, HierarchicalMatchesTreeFlow) {
    std::mt19937 rng(5);
    for (int round = 0; round < 300; ++round) {
        int height = 1 + rng() % 4, leaves = 2 + rng() % 10;
        std::string csv;
        std::vector<std::vector<std::string>> path(leaves);
        for (int i = 0; i < leaves; ++i) {
            path[i].push_back("v" + std::to_string(i));
            int g = i;
            for (int l = 1; l < height; ++l) {
                g /= 2;
                path[i].push_back("L" + std::to_string(l) + "_" + std::to_string(g));
            }
            for (auto& s : path[i]) csv += s + ";";
            csv += "*\n";
        }
        auto h = make_tree_hierarchy("s", parse_csv(csv, ";"));
        Table t;
        int classes = 1 + rng() % 4;
        for (int c = 0; c < classes; ++c) {
            Class cl;
            for (int k = 0, n = 1 + rng() % 6; k < n; ++k) cl["v" + std::to_string(rng() % leaves)] += 1 + rng() % 3;
            t.push_back(cl);
        }
        auto ct = contingency(t);
        // tree flow per class
        Class base;
        double n = 0;
        for (auto& cl : t)
            for (auto& [s, c] : cl) base[s] += c, n += c;
        double expected = 0;
        for (auto& cl : t) {
            double m = 0;
            for (auto& [s, c] : cl) m += c;
            std::map<std::string, double> below;  // node label -> p_class - p_table under it
            for (int i = 0; i < leaves; ++i) {
                std::string v = path[i][0];
                if (!base.count(v)) continue;
                double r = (cl.count(v) ? cl.at(v) / m : 0) - base[v] / n;
                for (auto& node : path[i]) below[node] += r;
            }
            double flow = 0;
            for (auto& [node, r] : below) flow += std::fabs(r);
            expected = std::max(expected, flow / (2.0 * height));
        }
        EXPECT_NEAR(*t_hierarchical(ct, *h), expected, 1e-12) << csv;
    }
}

TEST(TCloseness, HierarchicalRejectsValuesOutsideTheLeaves) {
    auto h = make_tree_hierarchy("s", parse_csv("a;g;*\nb;g;*\n", ";"));
    EXPECT_THROW(t_hierarchical(contingency({{{"a", 1}, {"zz", 1}}}), *h), Error);
    EXPECT_THROW(t_hierarchical(contingency({{{"a", 1}, {"g", 1}}}), *h), Error);
}

// Random tables: the production code agrees with the naive reference.
TEST(Measures, AgreeWithNaiveReference) {
    std::mt19937 rng(17);
    for (int round = 0; round < 2000; ++round) {
        Table t = random_table(rng, 1 + rng() % 8, 1 + rng() % 6, 5);
        auto ct = contingency(t);
        MeasureReference r = reference(t, 3);
        EXPECT_EQ(*k_anonymity(ct), r.k);
        EXPECT_NEAR(*a_know(ct), r.a_know, 1e-12);
        EXPECT_NEAR(*a_acc(ct), r.a_acc, 1e-12);
        EXPECT_NEAR(*information_gain(ct), std::max(0.0, r.gain), 1e-12);
        EXPECT_NEAR(*t_equal(ct), r.t, 1e-12);
        if (std::isinf(r.delta)) {
            EXPECT_TRUE(std::isinf(*delta_disclosure(ct)));
        } else {
            EXPECT_NEAR(*delta_disclosure(ct), r.delta, 1e-12);
        }
        EXPECT_EQ(*l_recursive(ct, 3), r.l_rec);
        // Without per-class values a measure may stop early (at ℓ = 1, or δ = ∞): it is
        // still the least (largest) of every class's value.
        std::vector<double> each;
        auto least = [&] { return *std::min_element(each.begin(), each.end()); };
        auto most = [&] { return *std::max_element(each.begin(), each.end()); };
        double v = *l_distinct(ct, &each);
        EXPECT_EQ(v, least());
        EXPECT_EQ(*l_distinct(ct), v);
        v = *l_entropy(ct, &each);
        EXPECT_EQ(v, least());
        EXPECT_EQ(*l_entropy(ct), v);
        v = *l_recursive(ct, 3, &each);
        EXPECT_EQ(v, least());
        EXPECT_EQ(*l_recursive(ct, 3), v);
        v = *delta_disclosure(ct, &each);
        EXPECT_EQ(v, most());
        EXPECT_EQ(*delta_disclosure(ct), v);
    }
}

// [BS08]
TEST(Measures, PropertiesOfSection4_6) {
    std::mt19937 rng(23);
    for (int round = 0; round < 1000; ++round) {
        Table t = random_table(rng, 2 + rng() % 8, 1 + rng() % 5, 6);
        auto ct = contingency(t);
        // 2. Merging two classes never increases A_know, A_acc, gain, t, δ; k never decreases.
        Table merged = t;
        std::size_t i = rng() % merged.size(), j = rng() % merged.size();
        if (i != j) {
            for (auto& [s, n] : merged[j]) merged[i][s] += n;
            merged.erase(merged.begin() + j);
            auto cm = contingency(merged);
            EXPECT_LE(*a_know(cm), *a_know(ct) + 1e-12);
            EXPECT_LE(*a_acc(cm), *a_acc(ct) + 1e-12);
            EXPECT_LE(*information_gain(cm), *information_gain(ct) + 1e-12);
            EXPECT_LE(*t_equal(cm), *t_equal(ct) + 1e-12);
            EXPECT_LE(*delta_disclosure(cm), *delta_disclosure(ct) + 1e-12);
            EXPECT_GE(*k_anonymity(cm), *k_anonymity(ct));
        }
        // 3. Lemma 1: δ-private for every δ above the level, so gain ≤ the level.
        if (std::isfinite(*delta_disclosure(ct))) {
            EXPECT_LE(*information_gain(ct), *delta_disclosure(ct) + 1e-12);
        }
        // 4, 5. Non-negative; t ≥ A_know.
        EXPECT_GE(*a_know(ct), 0);
        EXPECT_GE(*a_acc(ct), 0);
        EXPECT_GE(*t_equal(ct) + 1e-12, *a_know(ct));
        // 6. Class order and duplicating every row N times change nothing.
        Table shuffled = t;
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        Table doubled = t;
        for (auto& cl : doubled)
            for (auto& [s, n] : cl) n *= 3;
        for (const Table* other : {&shuffled, &doubled}) {
            auto co = contingency(*other);
            EXPECT_NEAR(*a_know(co), *a_know(ct), 1e-12);
            EXPECT_NEAR(*a_acc(co), *a_acc(ct), 1e-12);
            EXPECT_NEAR(*information_gain(co), *information_gain(ct), 1e-12);
            EXPECT_NEAR(*t_equal(co), *t_equal(ct), 1e-12);
            EXPECT_NEAR(*t_ordered(co), *t_ordered(ct), 1e-12);
            EXPECT_EQ(std::isinf(*delta_disclosure(co)), std::isinf(*delta_disclosure(ct)));
            EXPECT_NEAR(*l_entropy(co), *l_entropy(ct), 1e-9);
            EXPECT_EQ(*l_distinct(co), *l_distinct(ct));
        }
        // 7. (c,1) always holds; ℓ never exceeds a class's distinct values.
        EXPECT_GE(*l_recursive(ct, 1e-9), 1);
        EXPECT_LE(*l_recursive(ct, 1e9), *l_distinct(ct));
        // Multiplicity: a class stored with multiplicity m equals m copies.
        ContingencyTable once, twice;
        for (auto& cl : t) once.add_class(HistogramView(encode(cl)), 2);
        for (auto& cl : t)
            for (int r = 0; r < 2; ++r) twice.add_class(HistogramView(encode(cl)));
        EXPECT_NEAR(*a_know(once), *a_know(twice), 1e-12);
        EXPECT_NEAR(*information_gain(once), *information_gain(twice), 1e-12);
        EXPECT_NEAR(*average_risk(once), *average_risk(twice), 1e-15);
    }
}

TEST(Measures, OverflowIsRefused) {
    ContingencyTable t;
    std::string big = encode({{"a", kMaxCount}});
    t.add_class(HistogramView(big));
    EXPECT_THROW(t.add_class(HistogramView(big), 3), Error);
}

#include "classes/class_set.hpp"

// The level-2 state: identical classes dedupe, merging and the transfer form keep every measure.
TEST(ClassSet, DedupesMergesAndSerializes) {
    std::mt19937 rng(29);
    for (int round = 0; round < 200; ++round) {
        Table t = random_table(rng, 1 + rng() % 12, 1 + rng() % 3, 2);  // small domains: many duplicates
        ClassSet a(std::pmr::new_delete_resource()), b(std::pmr::new_delete_resource());
        for (std::size_t i = 0; i < t.size(); ++i) (i % 2 ? a : b).add(encode(t[i]));
        ClassSet restored(std::pmr::new_delete_resource());
        restored.add_serialized(b.serialize());
        a.merge(restored);
        auto direct = contingency(t);
        auto via = a.table();
        EXPECT_LE(a.distinct_classes(), t.size());
        EXPECT_EQ(via.classes(), direct.classes());
        EXPECT_EQ(via.rows(), direct.rows());
        EXPECT_NEAR(*a_know(via), *a_know(direct), 1e-12);
        EXPECT_NEAR(*information_gain(via), *information_gain(direct), 1e-12);
        EXPECT_NEAR(*a_acc(via), *a_acc(direct), 1e-12);
        EXPECT_NEAR(*t_equal(via), *t_equal(direct), 1e-12);
    }
}

#include "classes/class_aggregator.hpp"
#include "classes/class_runs.hpp"
#include "classes/class_tally_form.hpp"

// audit()'s one-pass aggregation builds the same classes as grouping by hand,
// small classes and classes past the linear-scan limit alike.
TEST(ClassAggregator, MatchesGroupingByHand) {
    std::mt19937 rng(31);
    for (int round = 0; round < 100; ++round) {
        int qis = 1 + rng() % 3, rows = 1 + rng() % 3000, domain = 1 + rng() % 40;
        // Small buffers fold many times; the default folds once, at the end.
        std::size_t buffer = round % 3 == 0 ? 1 + rng() % 50 : round % 3 == 1 ? 1 + rng() % 2000 : 1 << 20;
        ClassAggregator agg(std::pmr::new_delete_resource(), qis, buffer);
        std::map<std::vector<std::string>, Class> truth;
        for (int r = 0; r < rows; ++r) {
            std::vector<std::string> key;
            std::vector<Value> qi;
            std::vector<std::string> storage(qis);
            for (int i = 0; i < qis; ++i) {
                int v = rng() % 4;
                storage[i] = "q" + std::to_string(v);
                key.push_back(v == 3 ? "⊥" : storage[i]);
            }
            for (int i = 0; i < qis; ++i) qi.push_back(key[i] == "⊥" ? Value() : Value(storage[i]));
            int s = rng() % (domain + 1);
            std::string sv = "s" + std::to_string(s);
            agg.add(qi.data(), s == domain ? Value() : Value(sv));
            ++truth[key][s == domain ? "⊥" : sv];
        }
        Table expected;
        for (auto& [k, c] : truth) expected.push_back(c);
        ContingencyTable got = agg.finish();
        auto want = contingency(expected);
        EXPECT_EQ(got.classes(), want.classes());
        EXPECT_EQ(got.rows(), rows);
        EXPECT_EQ(*k_anonymity(got), *k_anonymity(want));
        EXPECT_NEAR(*a_know(got), *a_know(want), 1e-12);
        EXPECT_NEAR(*information_gain(got), *information_gain(want), 1e-12);
        EXPECT_EQ(*l_distinct(got), *l_distinct(want));
        EXPECT_EQ(std::isinf(*delta_disclosure(got)), std::isinf(*delta_disclosure(want)));
    }
}

// The class reader over shards: each shard's tally (its value), read class by class
// by its codes, gives every class with its values' texts and its sensitive counts,
// as counting the rows directly does.
TEST(ClassAggregator, TalliesReadByCodesGiveEachClassByItsTexts) {
    using Text = std::optional<std::string>;  // a value kept (Value only views one)
    std::mt19937 rng(43);
    for (int round = 0; round < 40; ++round) {
        const int qis = 1 + rng() % 4, rows = 1 + rng() % 3000, parts = 1 + rng() % 3;
        std::vector<std::unique_ptr<ClassAggregator>> part;
        for (int p = 0; p < parts; ++p)
            part.push_back(std::make_unique<ClassAggregator>(std::pmr::new_delete_resource(), qis, 1 + rng() % 300));
        std::map<std::vector<Text>, std::map<Text, int64_t>> want;
        for (int r = 0; r < rows; ++r) {
            std::vector<std::string> store(qis);
            std::vector<Value> qi(qis);
            std::vector<Text> kept(qis);
            for (int i = 0; i < qis; ++i) {
                int v = rng() % 5;
                store[i] = "v" + std::to_string(v);
                if (v != 4) qi[i] = store[i], kept[i] = store[i];
            }
            int s = rng() % 4;
            std::string sv = "s" + std::to_string(s);
            part[rng() % parts]->add(qi.data(), s == 3 ? Value() : Value(sv));
            ++want[kept][s == 3 ? Text() : Text(sv)];
        }
        // As the class reader codes them (ClassCoder::on_tally): each tally's classes by codes
        // into its values; a class met by several parts comes from each, and adds up.
        std::map<std::vector<Text>, std::map<Text, int64_t>> got;
        for (auto& p : part) {
            const std::string tally = p->serialize_tally();
            const TallyReader reader(tally, qis, std::pmr::new_delete_resource());
            std::vector<Text> sensitive;
            reader.for_each_sensitive([&](bool present, std::string_view text) {
                sensitive.push_back(present ? Text(std::string(text)) : Text());
            });
            reader.for_each_class([&](const uint32_t* codes, std::string_view cells) {
                std::vector<Text> k(qis);
                for (int i = 0; i < qis; ++i)
                    if (codes[i]) k[i] = std::string(reader.values(i)[codes[i] - 1]);
                for_each_run_cell(cells, sensitive.size(),
                                  [&](uint32_t id, int64_t count) { got[k][sensitive[id]] += count; });
            });
        }
        EXPECT_EQ(got, want);
    }
}

// A parallel or sharded audit: parts aggregated apart, keyed by binary forms,
// travel as byte forms and merge by text into the classes of one pass — the
// same measures bit for bit, whatever the split.
TEST(ClassAggregator, MergedTalliesGiveTheOnePassClasses) {
    struct Upper : ClassAggregator::Texts {  // the "binary key" is the lower-case text
        std::vector<std::string>* row;
        std::string out;
        std::string_view text(std::size_t i) override { return out = "V" + (*row)[i].substr(1); }
    };
    std::mt19937 rng(41);
    for (int round = 0; round < 60; ++round) {
        int qis = 1 + rng() % 4, rows = 1 + rng() % 4000, parts = 1 + rng() % 4;
        ClassAggregator one(std::pmr::new_delete_resource(), qis);
        std::vector<std::unique_ptr<ClassAggregator>> part;
        for (int p = 0; p < parts; ++p)
            part.push_back(std::make_unique<ClassAggregator>(std::pmr::new_delete_resource(), qis, 1 + rng() % 500));
        for (int r = 0; r < rows; ++r) {
            std::vector<std::string> key(qis), text(qis);
            std::vector<Value> qi(qis), shown(qis);
            for (int i = 0; i < qis; ++i) {
                int v = rng() % 6;
                key[i] = "v" + std::to_string(v);
                text[i] = "V" + std::to_string(v);
                qi[i] = v == 5 ? Value() : Value(key[i]);
                shown[i] = v == 5 ? Value() : Value(text[i]);
            }
            int s = rng() % 7;
            std::string sv = "s" + std::to_string(s);
            Value sensitive = s == 6 ? Value() : Value(sv);
            one.add(shown.data(), sensitive);
            Upper texts;
            texts.row = &key;
            part[rng() % parts]->add(qi.data(), sensitive, &texts);
        }
        ClassAggregator merged(std::pmr::new_delete_resource(), qis), direct(std::pmr::new_delete_resource(), qis);
        for (auto& p : part) merged.merge_serialized(p->serialize());
        for (auto& p : part) direct.merge(*p);  // in one process: no byte form
        EXPECT_EQ(merged.rows(), uint64_t(rows));
        EXPECT_EQ(direct.serialize(), merged.serialize());
        // A merged tally travels again (a combine's result is serialized too).
        ClassAggregator again(std::pmr::new_delete_resource(), qis);
        again.merge_serialized(merged.serialize());
        ContingencyTable want = one.finish(), got = again.finish();
        EXPECT_EQ(got.classes(), want.classes());
        EXPECT_EQ(got.rows(), want.rows());
        EXPECT_EQ(*a_know(got), *a_know(want));
        EXPECT_EQ(*information_gain(got), *information_gain(want));
        EXPECT_EQ(*l_entropy(got), *l_entropy(want));
        EXPECT_EQ(*t_equal(got), *t_equal(want));
        EXPECT_EQ(*k_anonymity(got), *k_anonymity(want));
    }
}

// A hand-made byte form is refused, never read past its end or trusted.
TEST(ClassAggregator, RefusesMalformedTallies) {
    ClassAggregator a(std::pmr::new_delete_resource(), 2);
    std::string x = "x", y = "y";
    Value row[2] = {Value(x), Value(y)};
    a.add(row, Value(x));
    std::string good = a.serialize();
    auto refused = [](std::string bytes) {
        ClassAggregator b(std::pmr::new_delete_resource(), 2);
        try {
            b.merge_serialized(bytes);
        } catch (const Error&) {
            return true;
        }
        return false;
    };
    EXPECT_FALSE(refused(good));
    for (std::size_t n = 0; n < good.size(); ++n) EXPECT_TRUE(refused(good.substr(0, n))) << n;
    EXPECT_TRUE(refused(good + "z"));
    std::string wide = good;
    wide[0] = 3;  // another width
    EXPECT_TRUE(refused(wide));
    std::string code = good;
    code[good.size() - 4 - 4 - 8 - 8] = 9;  // the class's first code: no such value
    EXPECT_TRUE(refused(code));
    std::string count = good;
    count[good.size() - 1] = char(0x80);  // a negative count
    EXPECT_TRUE(refused(count));
    // Keyed by binary forms, it cannot take tallies keyed by text.
    struct Same : ClassAggregator::Texts {
        std::string_view text(std::size_t) override { return "t"; }
    } texts;
    ClassAggregator binary(std::pmr::new_delete_resource(), 2);
    binary.add(row, Value(), &texts);
    EXPECT_THROW(binary.merge_serialized(good), Error);
}

// Canonical order: the same classes in any order give bit-identical measures.
TEST(ContingencyTable, CanonicalOrderMakesMeasuresBitIdentical) {
    std::mt19937 rng(37);
    for (int round = 0; round < 300; ++round) {
        Table t = random_table(rng, 2 + rng() % 30, 1 + rng() % 8, 50);
        Table shuffled = t;
        std::shuffle(shuffled.begin(), shuffled.end(), rng);
        auto a = contingency(t), b = contingency(shuffled);
        a.canonicalize();
        b.canonicalize();
        EXPECT_EQ(*a_know(a), *a_know(b));
        EXPECT_EQ(*information_gain(a), *information_gain(b));
        EXPECT_EQ(*t_equal(a), *t_equal(b));
        EXPECT_EQ(*t_ordered(a), *t_ordered(b));
        EXPECT_EQ(*l_entropy(a), *l_entropy(b));
        EXPECT_EQ(*delta_disclosure(a), *delta_disclosure(b));
        EXPECT_EQ(a.values(), b.values());
    }
}
