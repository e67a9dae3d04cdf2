// Independence top-k ([LSFB09]): w = (0.5, 0.1, 0.3), f = (0.5, 0.05, 0.9),
// N = 1000: g = (3.297443, 22.103418, 1.499843), disclosed in the order 3, 1, 2.
#include <gtest/gtest.h>

#include <cmath>

#include "common/error.hpp"
#include "dtrisk/independence.hpp"

using namespace privrisk;

TEST(Independence, PaperVectors) {
    const std::vector<double> w = {0.5, 0.1, 0.3}, f = {0.5, 0.05, 0.9};
    const double losses[4] = {0.001, 0.0014998, 0.0049456, 0.1093157};
    const std::vector<std::vector<int>> chosen = {{}, {2}, {2, 0}, {2, 0, 1}};
    for (int k = 0; k <= 3; ++k) {
        auto c = independent_top_k(w, f, 1000, k);
        EXPECT_EQ(c.disclosed, chosen[k]) << k;
        EXPECT_NEAR(c.loss, losses[k], 5e-8) << k;
    }
    auto c = independent_top_k(w, f, 1000, 3);
    EXPECT_NEAR(c.factors[0], 3.297443, 1e-6);
    EXPECT_NEAR(c.factors[1], 22.103418, 1e-6);
    EXPECT_NEAR(c.factors[2], 1.499843, 1e-6);
    // every factor >= 1: the loss never falls as more attributes are disclosed
    for (int k = 1; k <= 3; ++k) EXPECT_GE(independent_top_k(w, f, 1000, k).loss, independent_top_k(w, f, 1000, k - 1).loss);
    // a value nothing in the dictionary matches: ρ = ∅, loss 0 once it is disclosed
    EXPECT_EQ(independent_top_k({0.5, 0.1}, {0.5, 0}, 100, 2).loss, 0);
    EXPECT_THROW(independent_top_k(w, f, 1000, 4), Error);
    EXPECT_THROW(independent_top_k(w, {0.5, 1.5, 0.2}, 1000, 1), Error);
    EXPECT_THROW(independent_top_k({-1, 0, 0}, f, 1000, 1), Error);
    EXPECT_THROW(independent_top_k(w, f, 0, 1), Error);
}
