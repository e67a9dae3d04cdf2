#include <gtest/gtest.h>

#include "common/progress.hpp"

using privrisk::Progress;

TEST(Progress, ExtrapolatesTheRateSoFar) {
    Progress p{412, 1440, 5.0, true};
    ASSERT_TRUE(p.remaining_s());
    EXPECT_DOUBLE_EQ(*p.remaining_s(), 5.0 / 412 * (1440 - 412));
    EXPECT_EQ(p.text("nodes considered", "120 evaluated"),
              "412 of 1440 nodes considered (120 evaluated), 5.0 s, at most about 13 s left");
    Progress rows{800000, 1000000, 2.0};
    EXPECT_EQ(rows.text("rows read", ""), "800000 of 1000000 rows read, 2.0 s, about 1 s left");
}

TEST(Progress, NoEstimateBeforeAnythingIsDone) {
    EXPECT_FALSE((Progress{0, 100, 1.0}.remaining_s()));
    EXPECT_FALSE((Progress{5, 0, 1.0}.remaining_s()));
    EXPECT_EQ((Progress{0, 100, 0.25}.text("rows read", "")), "0 of 100 rows read, 0.2 s");
    EXPECT_DOUBLE_EQ(*(Progress{100, 100, 3.0}.remaining_s()), 0.0);
}
