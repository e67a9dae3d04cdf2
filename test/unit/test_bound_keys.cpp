// The one vocabulary of bounds (profiles/bound_keys.hpp): each row consistent
// with the measures it bounds, the qualifiers it has, and the profile keys the
// documentation lists.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "measures/measure_registry.hpp"
#include "profiles/bound_keys.hpp"
#include "profiles/risk_profile.hpp"

using namespace privrisk;

namespace {

bool is_measure_key(const std::string& key) {
    for (const MeasureInfo& m : measure_registry())
        if (key == m.key) return true;
    return key == "dt_risk" || key == "epsilon";  // from a dictionary, from the budget ledger
}

}  // namespace

TEST(BoundKeys, ThresholdsBoundMeasuresOfEveryKind) {
    int thresholds = 0;
    for (const BoundKey& b : bound_keys()) {
        if (!b.measure) continue;
        ++thresholds;
        const std::string measure = b.measure;
        if (measure.size() == 3 && measure.substr(1) == "_*") {  // l_* and t_*: one measure per kind
            const BoundKey& kind = bound_key(measure.substr(0, 1) + "_kind");
            EXPECT_STREQ(kind.qualifies, b.name);
            for (const char* choice : kind.choices) EXPECT_TRUE(is_measure_key(measure.substr(0, 2) + choice)) << choice;
        } else {
            EXPECT_TRUE(is_measure_key(measure)) << measure;
        }
    }
    EXPECT_EQ(thresholds, 10);
}

TEST(BoundKeys, QualifiersQualifyThresholdsAndDefaultsAreChoices) {
    for (const BoundKey& b : bound_keys()) {
        if (b.qualifies) {
            const BoundKey& threshold = bound_key(b.qualifies);
            EXPECT_NE(threshold.measure, nullptr) << b.name;
            EXPECT_EQ(b.uses & threshold.uses & kProfileKey, threshold.uses & kProfileKey) << b.name;
        }
        if (b.fallback && !b.choices.empty()) {
            bool found = false;
            for (const char* c : b.choices) found = found || std::string(c) == b.fallback;
            EXPECT_TRUE(found) << b.name;
        }
        EXPECT_NE(b.uses, 0u) << b.name;
    }
}

TEST(BoundKeys, OlderNamesFindTheirRow) {
    EXPECT_STREQ(find_bound_key("kmax")->name, "ck_k");
    EXPECT_STREQ(find_bound_key("sensitive_hierarchy")->name, "t_hierarchy");
    EXPECT_EQ(find_bound_key("kmaxx"), nullptr);
    int aliases = 0;
    for (const BoundKey& b : bound_keys())
        if (b.alias) {
            ++aliases;
            EXPECT_TRUE(b.uses & kAuditOption) << b.name;  // an older name of audit()'s
            EXPECT_EQ(find_bound_key(b.alias), &b);
        }
    EXPECT_EQ(aliases, 2);
}

TEST(BoundKeys, ProfileKeysAreTheListedOnes) {
    std::set<std::string> rows, listed;
    for (const BoundKey& b : bound_keys())
        if (b.uses & kProfileKey) rows.insert(b.name);
    std::string text = kProfileKeys, word;
    for (char c : text + ",") {
        if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
            word += c;
        } else {
            if (!word.empty() && word != "with") listed.insert(word);
            word.clear();
        }
    }
    EXPECT_EQ(rows, listed);
}

TEST(BoundKeys, ProfilesTakeComparisonsFromTheRows) {
    const RiskProfile p = RiskProfile::from_texts({{"k", "5"}, {"delta", "1"}, {"t", "0.2"}, {"t_kind", "ordered"}});
    ASSERT_EQ(p.thresholds.size(), 3u);
    EXPECT_EQ(p.thresholds[0].measure, "k_anonymity");
    EXPECT_EQ(p.thresholds[0].comparison, Comparison::AtLeast);
    EXPECT_EQ(p.thresholds[1].measure, "t_ordered");
    EXPECT_EQ(p.thresholds[1].comparison, Comparison::AtMost);
    EXPECT_EQ(p.thresholds[2].measure, "delta_disclosure");
    EXPECT_EQ(p.thresholds[2].comparison, Comparison::Below);
}
