// [ASB12]'s worked examples: Appendix A's channel, the worst-case prior, the
// toy k-anonymity universe and the utility example, with their exact numbers.
#include <gtest/gtest.h>

#include <cmath>

#include "information/information.hpp"
#include "test_support.hpp"

using namespace privrisk;

namespace {

Channel appendix_a() {
    return Channel::from_rows({{5 / 17.0, 2 / 17.0, 0, 10 / 17.0},
                               {0, 20 / 35.0, 5 / 35.0, 10 / 35.0},
                               {15 / 28.0, 5 / 28.0, 3 / 28.0, 5 / 28.0},
                               {5 / 20.0, 8 / 20.0, 0, 7 / 20.0}});
}

// The toy universe of [ASB12]: age a1..a4 -> {A12, A34} -> *, gender M/F -> *, disease (3) sensitive.
std::vector<UniverseAttribute> toy() {
    return {{"age", {{0, 1, 2, 3}, {0, 0, 1, 1}, {0, 0, 0, 0}}, true},
            {"gender", {{0, 1}, {0, 0}}, true},
            {"disease", {{0, 1, 2}}, false}};
}

}  // namespace

TEST(Information, AppendixAUniformPrior) {
    Channel c = appendix_a();
    auto m = channel_metrics(c, c.prior({}));
    EXPECT_NEAR(m.bayes_error, 147.0 / 272, 1e-12);
    EXPECT_NEAR(m.input_entropy, 2, 1e-12);
    EXPECT_NEAR(m.output_entropy, 1.815539, 1e-6);
    EXPECT_NEAR(m.conditional_entropy, 1.680905, 1e-6);
    EXPECT_NEAR(m.mutual_information, 0.319095, 1e-6);
    EXPECT_NEAR(m.error_bound, 0.688113, 1e-6);
    EXPECT_LE(m.bayes_error, m.error_bound);
    // MAP guesses: T'1 -> T3, T'2 -> T2, T'3 -> T2, T'4 -> T1 (0-based)
    ASSERT_EQ(m.guess.size(), 4u);
    EXPECT_EQ(*m.guess[0], 2u);
    EXPECT_EQ(*m.guess[1], 1u);
    EXPECT_EQ(*m.guess[2], 1u);
    EXPECT_EQ(*m.guess[3], 0u);
}

TEST(Information, AppendixAOtherPriorsAndAdversaries) {
    Channel c = appendix_a();
    auto point = channel_metrics(c, c.prior({1, 0, 0, 0}));
    EXPECT_NEAR(point.bayes_error, 0, 1e-15);
    EXPECT_NEAR(point.conditional_entropy, 0, 1e-12);
    auto skewed = channel_metrics(c, c.prior({0.5, 0.25, 0.125, 0.125}));
    EXPECT_NEAR(skewed.bayes_error, 181.0 / 476, 1e-12);
    EXPECT_NEAR(skewed.input_entropy, 1.75, 1e-12);
    EXPECT_NEAR(skewed.conditional_entropy, 1.424602, 1e-6);
    EXPECT_NEAR(skewed.mutual_information, 0.325398, 1e-6);
    EXPECT_NEAR(skewed.error_bound, 0.627478, 1e-6);
    auto a = adversary_errors(c, c.prior({}));
    EXPECT_NEAR(a.neither, 0.75, 1e-15);
    EXPECT_NEAR(a.prior_only, 0.75, 1e-15);
    EXPECT_NEAR(a.mechanism_only, 147.0 / 272, 1e-12);
    EXPECT_NEAR(a.both, 147.0 / 272, 1e-12);
    auto b = adversary_errors(c, c.prior({0.5, 0.25, 0.125, 0.125}));
    EXPECT_NEAR(b.prior_only, 0.5, 1e-15);
    EXPECT_NEAR(b.both, 181.0 / 476, 1e-12);
    // The uninformative channel: 0.75, and the bound is tight.
    Channel flat = Channel::from_rows(std::vector<std::vector<double>>(4, std::vector<double>(4, 0.25)));
    auto f = channel_metrics(flat, flat.prior({}));
    EXPECT_NEAR(f.bayes_error, 0.75, 1e-15);
    EXPECT_NEAR(f.conditional_entropy, 2, 1e-12);
    EXPECT_NEAR(f.error_bound, 0.75, 1e-12);
    // Identity: no error, I = 2 bits; deterministic 2-to-1: 1/2, tight bound.
    auto id = channel_metrics(Channel::from_rows({{1, 0, 0, 0}, {0, 1, 0, 0}, {0, 0, 1, 0}, {0, 0, 0, 1}}),
                              std::vector<double>(4, 0.25));
    EXPECT_NEAR(id.bayes_error, 0, 1e-15);
    EXPECT_NEAR(id.mutual_information, 2, 1e-12);
    auto two = channel_metrics(Channel::from_rows({{1, 0, 0, 0}, {1, 0, 0, 0}, {0, 1, 0, 0}, {0, 1, 0, 0}}),
                               std::vector<double>(4, 0.25));
    EXPECT_NEAR(two.bayes_error, 0.5, 1e-15);
    EXPECT_NEAR(two.conditional_entropy, 1, 1e-12);
    EXPECT_NEAR(two.error_bound, 0.5, 1e-12);
    EXPECT_FALSE(two.guess[2].has_value());  // unreachable output
}

TEST(Information, WorstCasePrior) {
    auto w = worst_case_prior(appendix_a());
    EXPECT_NEAR(w.bayes_error, 997.0 / 1657, 1e-12);
    ASSERT_EQ(w.prior.size(), 4u);
    EXPECT_NEAR(w.prior[0], 357.0 / 1657, 1e-12);
    EXPECT_NEAR(w.prior[1], 420.0 / 1657, 1e-12);
    EXPECT_NEAR(w.prior[2], 280.0 / 1657, 1e-12);
    EXPECT_NEAR(w.prior[3], 600.0 / 1657, 1e-12);
    // No prior does better than the vertex: a random search stays below it.
    Channel c = appendix_a();
    uint64_t s = 12345;
    for (int t = 0; t < 20000; ++t) {
        std::vector<double> p(4);
        double sum = 0;
        for (auto& x : p) {
            s = s * 6364136223846793005ull + 1442695040888963407ull;
            x = double(s >> 11) / double(1ull << 53);
            sum += x;
        }
        for (auto& x : p) x /= sum;
        ASSERT_LE(channel_metrics(c, p).bayes_error, w.bayes_error + 1e-12);
    }
}

TEST(Information, ToyUniverseChannel) {
    auto u2 = k_anonymity_channel(toy(), 5, 2, KAnonymityMechanism::Uniform);
    EXPECT_EQ(u2.inputs, 98280u);  // C(28, 5), the paper's §5.3 count
    EXPECT_EQ(u2.outputs, 5481u);
    EXPECT_NEAR(u2.sum_of_column_maxima, 1240, 1e-9);
    EXPECT_NEAR(u2.bayes_error, 2426.0 / 2457, 1e-12);
    EXPECT_NEAR(u2.conditional_entropy, 10.034939, 1e-6);
    EXPECT_NEAR(u2.error_bound, 0.999047, 1e-6);
    EXPECT_NEAR(u2.utility_degradation, 0.932676, 1e-6);
    std::map<int, uint64_t> x{{1, 11088}, {2, 38232}, {3, 29520}, {4, 13752}, {5, 2160}, {6, 3528}};
    EXPECT_EQ(u2.feasible_nodes, x);
    auto m2 = k_anonymity_channel(toy(), 5, 2, KAnonymityMechanism::Minimal);
    EXPECT_EQ(m2.outputs, 5481u);
    EXPECT_NEAR(m2.bayes_error, 491.0 / 520, 1e-12);
    EXPECT_NEAR(m2.conditional_entropy, 6.998934, 1e-6);
    EXPECT_NEAR(m2.error_bound, 0.992182, 1e-6);
    EXPECT_NEAR(m2.utility_degradation, 0.761881, 1e-6);
    auto u3 = k_anonymity_channel(toy(), 5, 3, KAnonymityMechanism::Uniform);
    EXPECT_EQ(u3.outputs, 441u);
    EXPECT_NEAR(u3.bayes_error, 701.0 / 702, 1e-12);
    EXPECT_NEAR(u3.conditional_entropy, 12.039257, 1e-6);
    EXPECT_NEAR(u3.utility_degradation, 1.091046, 1e-6);
    auto m3 = k_anonymity_channel(toy(), 5, 3, KAnonymityMechanism::Minimal);
    EXPECT_NEAR(m3.bayes_error, 1553.0 / 1560, 1e-12);
    EXPECT_NEAR(m3.conditional_entropy, 11.402051, 1e-6);
    EXPECT_NEAR(m3.utility_degradation, 1.059707, 1e-6);
}

TEST(Information, UtilityExample) {
    // (a1,M,Cold) (a2,F,Cold) (a3,M,Diabetes) (a3,F,Diabetes) (a4,M,Diabetes)
    std::vector<std::vector<uint32_t>> t{{0, 0, 0}, {1, 1, 0}, {2, 0, 2}, {2, 1, 2}, {3, 0, 2}};
    auto u = table_utility(t, {4, 2, 3}, {});
    EXPECT_NEAR(u.utility, 1.261654, 1e-6);
    EXPECT_NEAR(u.attributes[0].entropy, 1.921928, 1e-6);
    EXPECT_NEAR(u.attributes[0].conditional, 0.4, 1e-12);
    EXPECT_NEAR(u.attributes[0].u1, 0.078072, 1e-6);
    EXPECT_NEAR(u.attributes[0].u_max, 1.6, 1e-12);
    EXPECT_NEAR(u.attributes[1].u_max, 0.6, 1e-12);
    EXPECT_NEAR(u.attributes[2].u_max, std::log2(3.0), 1e-12);
    EXPECT_NEAR(u.attributes[2].u1, 0.614012, 1e-6);
    // Published at age level 1, gender level 1: domain sizes (2, 1, 3); degradation 0.4 exactly.
    std::vector<std::vector<uint32_t>> g{{0, 0, 0}, {0, 0, 0}, {1, 0, 2}, {1, 0, 2}, {1, 0, 2}};
    auto ug = table_utility(g, {2, 1, 3}, {});
    EXPECT_NEAR(ug.utility, 0.861654, 1e-6);
    EXPECT_NEAR(u.utility - ug.utility, 0.4, 1e-12);
    EXPECT_NEAR(table_utility(g, {4, 2, 3}, {}).utility, 1.528321, 1e-6);  // ground H_max: "utility" rises
}

TEST(Information, Entropy) {
    EXPECT_NEAR(entropy_nats({1, 1}), std::log(2.0), 1e-15);
    EXPECT_NEAR(entropy_nats({5}), 0, 1e-15);
    EXPECT_NEAR(entropy_nats({}), 0, 1e-15);
    EXPECT_NEAR(entropy_nats({1, 0, 3}), -(0.25 * std::log(0.25) + 0.75 * std::log(0.75)), 1e-15);
}

TEST(Information, BadInput) {
    using privrisk_test::error_of;
    EXPECT_NE(error_of([] { Channel::from_rows({{0.5, 0.5}, {1}}); }).find("row 2 has 1 entries"), std::string::npos);
    EXPECT_NE(error_of([] { Channel::from_rows({{0.5, 0.6}}); }).find("sums to 1.1"), std::string::npos);
    EXPECT_NE(error_of([] { Channel::from_rows({{1.5, -0.5}}); }).find("entry 2 is -0.5"), std::string::npos);
    EXPECT_NE(error_of([] { Channel::from_rows({{NAN, 1}}); }).find("entry 1 is nan"), std::string::npos);
    EXPECT_NE(error_of([] { Channel::from_rows({}); }).find("at least one input"), std::string::npos);
    Channel c = appendix_a();
    EXPECT_NE(error_of([&] { c.prior({0.5, 0.5}); }).find("2 entries"), std::string::npos);
    EXPECT_NE(error_of([&] { c.prior({0.5, 0.5, 0.5, 0}); }).find("sums to 1.5"), std::string::npos);
    // Within the documented tolerance a prior passes; just past it, it does not.
    EXPECT_EQ(error_of([&] { c.prior({0.25, 0.25, 0.25, 0.25 + 5e-10}); }), "no error");
    EXPECT_NE(error_of([&] { c.prior({0.25, 0.25, 0.25, 0.25 + 5e-9}); }).find("tolerance 1e-9"), std::string::npos);
    // Universes past the limit are refused before any enumeration.
    EXPECT_NE(error_of([] { k_anonymity_channel(toy(), 10, 2, KAnonymityMechanism::Uniform); })
                  .find("92561040 input tables"),
              std::string::npos);
    EXPECT_NE(error_of([] { k_anonymity_channel(toy(), 2, 3, KAnonymityMechanism::Uniform); }).find("k exceeds"),
              std::string::npos);
    // A big channel's worst-case prior is refused, not attempted.
    std::vector<std::vector<double>> big(12, std::vector<double>(12, 1.0 / 12));
    for (int i = 0; i < 12; ++i) big[i][i] += 0.01, big[i][(i + 1) % 12] -= 0.01;
    EXPECT_NE(error_of([&] { worst_case_prior(Channel::from_rows(big)); }).find("candidate vertices"), std::string::npos);
}
