// SafePub's (ε, δ) -> (β, k) against values computed independently by
// test/reference/safepub_parameters.py: 60-digit decimals, exact binomial
// coefficients, every term of every tail summed (no log space).
#include <gtest/gtest.h>

#include <cmath>

#include "dp/dp_parameters.hpp"
#include "test_support.hpp"

using namespace privrisk;

TEST(DpParameters, MatchTheIndependentReference) {
    struct Case {
        double epsilon, delta, beta;
        int64_t k;
        double delta_k, delta_k_minus_1;
    };
    const Case cases[] = {
        {1.0, 1e-3, 0.63212055882855768, 34, 8.506156689596e-4, 1.182727121944e-3},
        {1.0, 1e-5, 0.63212055882855768, 61, 7.802839759357e-6, 1.032974199487e-5},
        {2.0, 1e-5, 0.86466471676338731, 113, 9.811912534883e-6, 1.116128866959e-5},
        {0.5, 1e-3, 0.39346934028736658, 27, 9.654483630454e-4, 1.568135612944e-3},
        {1.5, 1e-4, 0.77686983985157017, 62, 9.145230739535e-5, 1.125987837518e-4},
    };
    for (const Case& c : cases) {
        DpParameters p = dp_parameters(c.epsilon, c.delta);
        EXPECT_LE(p.beta, c.beta) << c.epsilon;  // rounded down, never up
        EXPECT_NEAR(p.beta, c.beta, 1e-15) << c.epsilon;
        EXPECT_EQ(p.k, c.k) << c.epsilon << " " << c.delta;
        EXPECT_GE(p.delta_k, c.delta_k) << c.epsilon;  // an upper bound of the exact δ(k)
        EXPECT_NEAR(p.delta_k, c.delta_k, 1e-8 * c.delta_k) << c.epsilon;
        EXPECT_NEAR(safepub_delta(p.beta, p.gamma, c.k - 1), c.delta_k_minus_1, 1e-8 * c.delta_k_minus_1);
    }
}

TEST(DpParameters, Monotone) {
    // Smaller δ needs a larger k; larger ε samples more (β grows).
    int64_t previous_k = 0;
    for (double delta : {1e-2, 1e-3, 1e-4, 1e-5, 1e-6, 1e-8}) {
        int64_t k = dp_parameters(1.0, delta).k;
        EXPECT_GE(k, previous_k) << delta;
        previous_k = k;
    }
    double previous_beta = 0;
    for (double epsilon : {0.1, 0.5, 1.0, 2.0, 4.0}) {
        double beta = dp_parameters(epsilon, 1e-4).beta;
        EXPECT_GT(beta, previous_beta) << epsilon;
        previous_beta = beta;
    }
}

TEST(DpParameters, BadInput) {
    using privrisk_test::error_of;
    EXPECT_NE(error_of([] { dp_parameters(0, 1e-3); }).find("epsilon must be positive"), std::string::npos);
    EXPECT_NE(error_of([] { dp_parameters(-1, 1e-3); }).find("epsilon must be positive"), std::string::npos);
    EXPECT_NE(error_of([] { dp_parameters(NAN, 1e-3); }).find("epsilon must be positive"), std::string::npos);
    EXPECT_NE(error_of([] { dp_parameters(1, 0); }).find("delta must be in (0, 1)"), std::string::npos);
    EXPECT_NE(error_of([] { dp_parameters(1, 1); }).find("delta must be in (0, 1)"), std::string::npos);
    EXPECT_NE(error_of([] { dp_parameters(1, NAN); }).find("delta must be in (0, 1)"), std::string::npos);
    // Past 36, 1 - e^-epsilon rounds to 1: too large, never "too small".
    EXPECT_NE(error_of([] { dp_parameters(1000, 1e-5); }).find("epsilon must be at most 36"), std::string::npos);
    EXPECT_NE(error_of([] { dp_parameters(37, 0.5); }).find("epsilon must be at most 36"), std::string::npos);
    EXPECT_NE(error_of([] { dp_parameters(5e-324, 0.5); }).find("too small"), std::string::npos);
}
