// The registry of measures: one key each, and each entry computes what the
// measure's own function computes (the rare-cancer instance of [BS08], whose
// published numbers the measures tests check).
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "measures/measure_registry.hpp"
#include "measures/measures.hpp"
#include "test_support.hpp"

using namespace privrisk;
using privrisk_test::rare_cancer;

TEST(MeasureRegistry, OneKeyPerMeasure) {
    std::set<std::string> keys;
    for (const MeasureInfo& m : measure_registry()) {
        EXPECT_TRUE(keys.insert(m.key).second) << "key used twice: " << m.key;
        EXPECT_EQ(&measure_info(m.id), &m);
        EXPECT_NE(std::string(m.unit), "");
    }
    EXPECT_EQ(keys.size(), 15u);
}

TEST(MeasureRegistry, EntriesComputeTheirMeasure) {
    ContingencyTable t = rare_cancer();
    MeasureParameters p;
    p.risk_threshold = 0.05;
    p.l_c = 3;
    auto of = [&](MeasureId id) { return *measure_info(id).of_table(t, p); };
    EXPECT_EQ(of(MeasureId::KAnonymity), 10);
    EXPECT_DOUBLE_EQ(of(MeasureId::ProsecutorRisk), *prosecutor_risk(t));
    EXPECT_DOUBLE_EQ(of(MeasureId::AverageRisk), 2.0 / 1000);
    EXPECT_DOUBLE_EQ(of(MeasureId::RecordsAtRisk), *records_at_risk(t, 0.05));
    EXPECT_DOUBLE_EQ(of(MeasureId::LDistinct), 2);
    EXPECT_DOUBLE_EQ(of(MeasureId::LRecursive), *l_recursive(t, 3));
    EXPECT_NEAR(of(MeasureId::DeltaDisclosure), 3.4011973816621555, 1e-12);
    EXPECT_NEAR(of(MeasureId::TEqual), 0.29, 1e-12);
    EXPECT_NEAR(of(MeasureId::AKnow), 0.0058, 1e-12);
    EXPECT_NEAR(of(MeasureId::InformationGain), 0.008255133785001027, 1e-15);
    // t_ordered needs numbers, t_hierarchical a hierarchy: neither applies here.
    EXPECT_FALSE(measure_info(MeasureId::TOrdered).applies(t, p));
    EXPECT_FALSE(measure_info(MeasureId::THierarchical).applies(t, p));
    EXPECT_FALSE(measure_info(MeasureId::CkMaxDisclosure).of_table);  // the search computes it at its k
}
