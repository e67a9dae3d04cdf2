// The explanation of a search that finds nothing (docs/search.md, "When nothing qualifies").
#include <gtest/gtest.h>

#include "search/nothing_found.hpp"

using namespace privrisk;

TEST(NothingFound, ChecksEachConstraintWithTheSearchsComparisons) {
    Constraints q;
    q.k = 10;
    q.c = 0.5;
    q.ck_k = 3;
    NodeReport top;
    top.k = 500;
    top.ck = 1.0;
    auto checks = check_constraints(top, q, 1000);
    ASSERT_EQ(checks.size(), 2u);
    EXPECT_EQ(checks[0].constraint, "k");
    EXPECT_EQ(*checks[0].value, 500);
    EXPECT_TRUE(checks[0].passed);
    EXPECT_EQ(checks[1].constraint, "c");
    EXPECT_EQ(*checks[1].value, 1.0);
    EXPECT_EQ(checks[1].threshold, 0.5);
    EXPECT_FALSE(checks[1].passed);  // (c,k)-safety is strict: MD < c
    top.ck = 0.5;
    EXPECT_FALSE(check_constraints(top, q, 1000)[1].passed);
    top.ck = 0.49;
    EXPECT_TRUE(check_constraints(top, q, 1000)[1].passed);
}

TEST(NothingFound, SuppressionIsTheShareOfViolatingRows) {
    Constraints q;
    q.k = 600;
    q.max_suppression = 0.1;
    NodeReport top;
    top.k = 500;
    top.violating = 1000;
    auto checks = check_constraints(top, q, 1000);
    ASSERT_EQ(checks.size(), 2u);
    EXPECT_FALSE(checks[0].passed);
    EXPECT_EQ(checks[1].constraint, "max_suppression");
    EXPECT_EQ(*checks[1].value, 1.0);
    EXPECT_FALSE(checks[1].passed);
    Constraints relaxed = without_failed(q, checks);
    EXPECT_FALSE(relaxed.k.has_value());
    EXPECT_EQ(relaxed.max_suppression, 1.0);
}

TEST(NothingFound, RelaxesOnlyWhatFailsAndTheSummaryNamesIt) {
    Constraints q;
    q.k = 10;
    q.l = 2;
    q.max_risk = 0.001;
    NodeReport top;
    top.k = 500;
    top.l = 2;
    top.max_risk = 0.002;
    auto checks = check_constraints(top, q, 1000);
    Constraints relaxed = without_failed(q, checks);
    EXPECT_EQ(relaxed.k, q.k);
    EXPECT_EQ(relaxed.l, q.l);
    EXPECT_FALSE(relaxed.max_risk.has_value());
    std::string summary = nothing_found_summary("age: 3", checks, q, "age: 1", checks);
    EXPECT_NE(summary.find("Even the top node (age: 3"), std::string::npos) << summary;
    EXPECT_NE(summary.find("fails max_risk: 0.002, needs at most 0.001"), std::string::npos) << summary;
    EXPECT_EQ(summary.find("k-anonymity"), std::string::npos) << summary;  // k passes: not named
    EXPECT_NE(summary.find("The nearest node (age: 1)"), std::string::npos) << summary;
}
