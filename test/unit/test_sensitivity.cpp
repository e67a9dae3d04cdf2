// Sensitivity and loss: the paper's case study ([LSFB09]), the
// constructed vectors of §4.3–4.4, harmonic weights, 0·∞ = 0.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "hierarchy/hierarchy.hpp"
#include "dtrisk/sensitivity.hpp"
#include "test_support.hpp"

using namespace privrisk;

TEST(Sensitivity, CaseStudyOfSection8) {
    // City: city -> county -> state -> region -> ⊥ (height 4); Race: race -> group -> ⊥;
    // Birthdate: the date hierarchy (day -> month -> year -> ⊥); Income in $k:
    // widths 5, 20, 80 from 20 (52 -> [50, 55) -> [40, 60) -> [20, 100) -> ⊥).
    auto city = make_tree_hierarchy("city", parse_csv("West Lafayette;Tippecanoe;Indiana;Midwest;*\n"
                                                      "Lafayette;Tippecanoe;Indiana;Midwest;*\n", ";"));
    auto race = make_tree_hierarchy("race", parse_csv("White;Caucasian;*\nChinese;Asian;*\n", ";"));
    auto birth = make_date_hierarchy("birthdate");
    auto income = make_interval_hierarchy("income", 20, 99, {5, 20, 80});
    const Hierarchy* hs[4] = {city.get(), race.get(), birth.get(), income.get()};
    const double leaf[4] = {0.3, 0.4, 0.5, 0.75};
    auto phi = [&](const std::vector<Value>& y) {
        std::vector<double> w;
        std::vector<bool> disclosed;
        for (int j = 0; j < 4; ++j) {
            w.push_back(harmonic_weight(*hs[j], y[j], leaf[j]));
            disclosed.push_back(y[j].has_value());
        }
        return sensitivity_multiplicative(w, disclosed);
    };
    double full = phi({Value("West Lafayette"), Value("White"), Value("1975-05-10"), Value("52")});
    EXPECT_NEAR(full, 7.028688, 1e-6);  // e^1.95, printed 7.03
    EXPECT_NEAR(disclosure_loss(full, 7), 1.004098, 1e-6);
    EXPECT_NEAR(harmonic_weight(*birth, Value("1975-05"), 0.5), 0.5 / 31, 1e-15);
    EXPECT_NEAR(harmonic_weight(*income, Value("[20, 100)"), 0.75), 0.75 / 80, 1e-15);
    double general = phi({Value("West Lafayette"), std::nullopt, Value("1975-05"), Value("[20, 100)")});
    EXPECT_NEAR(general, 1.384728, 1e-6);  // e^(0.3 + 0.5/31 + 0.75/80), printed 1.38
    EXPECT_NEAR(disclosure_loss(general, 198), 0.0069936, 1e-7);
    // utility Σ(height − steps): 13 and 7
    auto utility = [&](const std::vector<Value>& y, const std::vector<Value>& x) {
        int u = 0;
        for (int j = 0; j < 4; ++j) u += hs[j]->height() - ((y[j] ? hs[j]->level_of(*y[j]) : hs[j]->height()) - hs[j]->level_of(*x[j]));
        return u;
    };
    std::vector<Value> x = {Value("West Lafayette"), Value("White"), Value("1975-05-10"), Value("52")};
    EXPECT_EQ(utility(x, x), 13);
    EXPECT_EQ(utility({Value("West Lafayette"), std::nullopt, Value("1975-05"), Value("[20, 100)")}, x), 7);
}

TEST(Sensitivity, HarmonicWeightsOfATree) {
    // County X has 3 cities, Y has 2; w_c = 0.3: X 0.1, Y 0.15, state 0.06, ⊥ 0.
    auto h = make_tree_hierarchy("c", parse_csv("a;X;S;*\nb;X;S;*\nc;X;S;*\nd;Y;S;*\ne;Y;S;*\n", ";"));
    EXPECT_NEAR(harmonic_weight(*h, Value("X"), 0.3), 0.1, 1e-15);
    EXPECT_NEAR(harmonic_weight(*h, Value("Y"), 0.3), 0.15, 1e-15);
    EXPECT_NEAR(harmonic_weight(*h, Value("S"), 0.3), 0.06, 1e-15);
    EXPECT_NEAR(1 / (1 / 0.1 + 1 / 0.15), 0.06, 1e-15);  // the modified harmonic mean of its children
    EXPECT_EQ(harmonic_weight(*h, std::nullopt, 0.3), 0);
    EXPECT_EQ(harmonic_weight(*h, Value("a"), 0.3), 0.3);
    EXPECT_THROW(harmonic_weight(*h, Value("zz"), 0.3), Error);
    EXPECT_THROW(harmonic_weight(*h, Value("a"), -1), Error);
}

TEST(Sensitivity, ConstructedRiskTable) {
    // worked example: zip leaf weight 0.2 (4790* has 3 leaves), age 0.4 (decades of 10).
    auto zip = make_tree_hierarchy("zip", parse_csv("47906;4790*;*\n47907;4790*;*\n47901;4790*;*\n10001;1000*;*\n", ";"));
    auto age = make_interval_hierarchy("age", 0, 150, {10});
    struct Row {
        Value zip, age;
        int64_t matches;
        double phi4, loss4, phi1, loss1;
    };
    const Row rows[5] = {{Value("47906"), Value("34"), 3, 1.822119, 0.607373, 0.6, 0.2},
                         {Value("4790*"), Value("34"), 4, 1.594670, 0.398667, 0.466667, 0.116667},
                         {Value("4790*"), Value("[30, 40)"), 5, 1.112563, 0.222513, 0.106667, 0.021333},
                         {std::nullopt, std::nullopt, 7, 1.0, 0.142857, 0.0, 0.0},
                         {Value("47906"), Value("[20, 30)"), 0, 1.271249, 0.0, 0.24, 0.0}};
    double risk4 = 0, risk1 = 0;
    for (const Row& r : rows) {
        std::vector<double> w = {harmonic_weight(*zip, r.zip, 0.2), harmonic_weight(*age, r.age, 0.4)};
        std::vector<bool> d = {r.zip.has_value(), r.age.has_value()};
        double p4 = sensitivity_multiplicative(w, d), p1 = sensitivity_linear(w, d);
        EXPECT_NEAR(p4, r.phi4, 1e-6);
        EXPECT_NEAR(p1, r.phi1, 1e-6);
        EXPECT_NEAR(disclosure_loss(p4, r.matches), r.loss4, 1e-6);
        EXPECT_NEAR(disclosure_loss(p1, r.matches), r.loss1, 1e-6);
        risk4 += disclosure_loss(p4, r.matches) / 5;
        risk1 += disclosure_loss(p1, r.matches) / 5;
    }
    EXPECT_NEAR(risk4, 0.2742820, 1e-7);
    EXPECT_NEAR(risk1, 0.0676000, 1e-7);
}

TEST(Sensitivity, LossEdgesAndPairs) {
    const double inf = INFINITY;
    EXPECT_EQ(disclosure_loss(inf, 0), 0);          // 0·∞ = 0: nothing matches
    EXPECT_EQ(disclosure_loss(inf, 3), inf);
    EXPECT_EQ(disclosure_loss(2, 0, 5), 5);          // Ψ when nothing matches
    EXPECT_EQ(disclosure_loss(2, 1, inf), 2);        // sure identification: (1 − p)·Ψ = 0·∞ = 0
    EXPECT_NEAR(disclosure_loss(2, 4, 1), 0.5 + 0.75, 1e-15);
    EXPECT_NEAR(disclosure_loss(2, 4), 0.5, 1e-15);   // Prop. 2 instance: c = 2, k = 4
    EXPECT_NEAR(disclosure_loss(2, 3), 0.666667, 1e-6);
    EXPECT_THROW(disclosure_loss(std::nan(""), 1), Error);
    EXPECT_THROW(disclosure_loss(-1, 1), Error);
    EXPECT_THROW(disclosure_loss(1, -1), Error);
    EXPECT_EQ(sensitivity_linear({1, 2, inf}, {true, true, false}), 3);
    EXPECT_EQ(sensitivity_multiplicative({1, 2}, {false, false}), 1);  // E9
    EXPECT_NEAR(sensitivity_pairwise({1, 2, 3}, {0, 10, 20, 0, 0, 30, 0, 0, 0}, {true, true, false}), 13, 1e-15);
    EXPECT_NEAR(sensitivity_pairwise({1, 2, 3}, {0, 10, 20, 0, 0, 30, 0, 0, 0}, {true, true, true}), 66, 1e-15);
    EXPECT_THROW(sensitivity_linear({1, -2}, {true, true}), Error);
    EXPECT_THROW(sensitivity_linear({1}, {true, true}), Error);
    EXPECT_THROW(sensitivity_pairwise({1, 2}, {0, 1, 2}, {true, true}), Error);
}
