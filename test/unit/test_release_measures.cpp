// A release's measures as audit() reports them and as a profile's thresholds
// read them (profiles/release_measures.hpp), on the rare-cancer instance of
// [BS08]: two classes, 10 and 990 rows.
#include <gtest/gtest.h>

#include <string>

#include "ck/ck_safety.hpp"
#include "profiles/release_measures.hpp"
#include "test_support.hpp"

using namespace privrisk;
using privrisk_test::rare_cancer;

namespace {

const Threshold* threshold(const RiskProfile& p, const std::string& key) {
    for (const Threshold& t : p.thresholds)
        if (t.key == key) return &t;
    return nullptr;
}

}  // namespace

TEST(ReleaseMeasures, ThresholdsReadTheRegistrysValues) {
    const ContingencyTable t = rare_cancer();
    MeasureParameters params;
    params.l_c = 2;
    const ReleaseMeasures m = release_measures(t, true, params, 2);
    const RiskProfile p = RiskProfile::from_texts(
        {{"k", "5"}, {"l", "2"}, {"l_kind", "recursive"}, {"l_c", "2"}, {"c", "0.5"}, {"ck_k", "2"}, {"delta", "1"}});
    std::string why;
    EXPECT_EQ(threshold_value(*threshold(p, "k"), p, m, &why), 10.0);
    EXPECT_EQ(threshold_value(*threshold(p, "l"), p, m, &why), l_recursive(t, 2));
    EXPECT_EQ(threshold_value(*threshold(p, "delta"), p, m, &why), delta_disclosure(t));
    // (c,k): the curve at the profile's ck_k, as check() reads audit()'s ck_disclosure_curve.
    EXPECT_EQ(threshold_value(*threshold(p, "c"), p, m, &why), ck_disclosure_curve(t, 2)[2]);
    EXPECT_EQ(why, "");
    EXPECT_EQ(m.rows, 1000);
    EXPECT_EQ(m.classes, 2);
}

TEST(ReleaseMeasures, JsonIsAuditsReport) {
    const ReleaseMeasures m = release_measures(rare_cancer(), false, MeasureParameters{}, 10);
    const std::string json = m.json();
    EXPECT_EQ(json.rfind("{\"rows\": 1000, \"classes\": 2, \"k_anonymity\": 10, \"prosecutor_risk\": 0.1", 0), 0u) << json;
    EXPECT_EQ(json.find("l_distinct"), std::string::npos);  // no sensitive column
    EXPECT_EQ(json.find("ck_disclosure_curve"), std::string::npos);
    EXPECT_NE(release_measures(rare_cancer(), true, MeasureParameters{}, 3).json().find("\"ck_disclosure_curve\": ["),
              std::string::npos);
}

TEST(ReleaseMeasures, MissingMeasuresSayWhy) {
    const RiskProfile p = RiskProfile::from_texts({{"l", "2"}, {"t", "0.2"}, {"t_kind", "ordered"}, {"c", "0.5"}, {"ck_k", "1"}});
    std::string why;
    // No sensitive column: no l, no t, no curve.
    const ReleaseMeasures plain = release_measures(rare_cancer(), false, MeasureParameters{}, 1);
    EXPECT_EQ(threshold_value(*threshold(p, "l"), p, plain, &why), std::nullopt);
    EXPECT_EQ(why, "no sensitive column");
    // Text sensitive values have no order: t_ordered is not reported.
    const ReleaseMeasures text = release_measures(rare_cancer(), true, MeasureParameters{}, 1);
    EXPECT_EQ(threshold_value(*threshold(p, "t"), p, text, &why), std::nullopt);
    EXPECT_EQ(why, "t_ordered needs numeric sensitive values");
    // An empty release reports its measures as null, and no curve.
    const ReleaseMeasures empty = release_measures(ContingencyTable{}, true, MeasureParameters{}, 1);
    EXPECT_EQ(threshold_value(*threshold(p, "l"), p, empty, &why), std::nullopt);
    EXPECT_EQ(why, "no row is released");
    EXPECT_EQ(threshold_value(*threshold(p, "c"), p, empty, &why), std::nullopt);
    EXPECT_EQ(why, "audit() does not report it for this release");
}
