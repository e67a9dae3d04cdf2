#include <gtest/gtest.h>

#include "test_support.hpp"

#include <cmath>
#include <map>
#include <optional>
#include <string>

#include "common/error.hpp"
#include "profiles/risk_profile.hpp"

namespace {

using privrisk::Error;
using privrisk::RiskProfile;

std::optional<double> measure(const std::map<std::string, double>& values, const privrisk::Threshold& t,
                              std::string* why) {
    auto found = values.find(t.measure);
    if (found == values.end()) {
        *why = "none";
        return std::nullopt;
    }
    return found->second;
}

}  // namespace

TEST(RiskProfile, ThresholdsCompareAsTheSearchDoes) {
    RiskProfile p = RiskProfile::from_texts({{"k", "5"}, {"l", "2"}, {"delta", "1.5"}, {"c", "0.5"}, {"ck_k", "3"}});
    std::map<std::string, double> ok{{"k_anonymity", 5}, {"l_distinct", 2 - 1e-15}, {"delta_disclosure", 1.4},
                                     {"ck_max_disclosure", 0.49}};
    auto v = privrisk::evaluate(p, [&](const privrisk::Threshold& t, std::string* why) { return measure(ok, t, why); });
    EXPECT_TRUE(v.publishable) << v.summary;
    EXPECT_EQ(v.checks[0].margin, std::optional<double>(0));
    EXPECT_EQ(p.audit_options.at("ck_k"), "3");
    std::map<std::string, double> bad{{"k_anonymity", 4}, {"l_distinct", 2}, {"delta_disclosure", 1.5},
                                      {"ck_max_disclosure", 0.5}};
    v = privrisk::evaluate(p, [&](const privrisk::Threshold& t, std::string* why) { return measure(bad, t, why); });
    EXPECT_FALSE(v.publishable);
    EXPECT_EQ(v.summary, "not publishable: k_anonymity = 4 < 5, delta_disclosure = 1.5 >= 1.5, ck_max_disclosure = 0.5 >= 0.5");
}

TEST(RiskProfile, InfinitiesAndMissingMeasuresFail) {
    RiskProfile p = RiskProfile::from_texts({{"k", "5"}, {"max_risk", "0.2"}});
    std::map<std::string, double> inf{{"k_anonymity", -INFINITY}, {"prosecutor_risk", INFINITY}};
    auto v = privrisk::evaluate(p, [&](const privrisk::Threshold& t, std::string* why) { return measure(inf, t, why); });
    EXPECT_FALSE(v.checks[0].passed);
    EXPECT_FALSE(v.checks[1].passed);
    std::map<std::string, double> none;
    v = privrisk::evaluate(p, [&](const privrisk::Threshold& t, std::string* why) { return measure(none, t, why); });
    EXPECT_FALSE(v.publishable);
    EXPECT_EQ(v.summary, "not publishable: k_anonymity unknown (none), prosecutor_risk unknown (none)");
}

// Found by the options fuzz target: a subnormal threshold made std::stod throw out_of_range, an
// internal error; it is the tiny number it says, and what is not a finite number is refused by key.
TEST(RiskProfile, ThresholdNumbersParseWithoutLibraryExceptions) {
    RiskProfile p = RiskProfile::from_texts({{"dt_risk", "1e-320"}, {"max_risk", "0.25"}});
    ASSERT_EQ(p.thresholds.size(), 2u);
    for (const auto& t : p.thresholds) {
        if (t.key == "dt_risk") {
            EXPECT_EQ(t.value, 1e-320);
        } else {
            EXPECT_EQ(t.key, "max_risk");
            EXPECT_EQ(t.value, 0.25);
        }
    }
    EXPECT_NE(privrisk_test::error_of([] { RiskProfile::from_texts({{"k", "1e999"}}); }).find("profile key k must be a finite number"),
              std::string::npos);
    EXPECT_NE(privrisk_test::error_of([] { RiskProfile::from_texts({{"k", "five"}}); }).find("profile key k must be a finite number"),
              std::string::npos);
}

TEST(RiskProfile, QualifiersAreFixedByTheProfile) {
    EXPECT_EQ(RiskProfile::from_texts({{"l", "3"}, {"l_kind", "recursive"}}).audit_options.at("l_c"), "3");
    EXPECT_EQ(RiskProfile::from_texts({{"records_at_risk", "0.1"}}).audit_options.at("risk_threshold"), "0.2");
    EXPECT_THROW(RiskProfile::from_texts({{"l_c", "2"}}), Error);
    EXPECT_THROW(RiskProfile::from_texts({{"c", "0.5"}}), Error);
    EXPECT_THROW(RiskProfile::from_texts({}), Error);
}

TEST(RiskProfile, SearchConstraintsFixEveryQualifier) {
    RiskProfile p = RiskProfile::from_texts({{"k", "5"}, {"l", "3"}, {"l_kind", "recursive"}, {"t", "0.2"}});
    EXPECT_EQ(p.search_constraints, (std::map<std::string, std::string>{
                                        {"k", "5"}, {"l", "3"}, {"l_kind", "recursive"}, {"l_c", "3"}, {"t", "0.2"}, {"t_kind", "equal"}}));
    EXPECT_EQ(p.not_for_search, "");
    RiskProfile q = RiskProfile::from_texts({{"k", "10"}, {"records_at_risk", "0.05"}, {"epsilon", "1"}});
    EXPECT_EQ(q.not_for_search, "epsilon");  // the first in key order
    EXPECT_EQ(q.search_constraints, (std::map<std::string, std::string>{{"k", "10"}}));
}
