// Coded classes rolled up to a level and turned into a contingency table
// (src/core/search/node_classes.hpp: audit()'s classes with hierarchies, read by
// the class reader) against a class aggregation of the generalized rows, which
// is how audit() counts them without a hierarchy: the same table, so every
// measure is the same bit for bit.
#include <gtest/gtest.h>

#include <optional>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "classes/class_aggregator.hpp"
#include "measures/measures.hpp"
#include "search/node_classes.hpp"

using namespace privrisk;

TEST(NodeClasses, RolledUpCodesGiveTheTableOfTheGeneralizedRows) {
    std::mt19937 rng(36);
    for (int round = 0; round < 60; ++round) {
        const std::size_t qis = 1 + rng() % 4;
        const int rows = 1 + rng() % 3000;
        const bool histograms = round % 3 != 0;
        // Per quasi-identifier: values 0..domain-1 (the last one ⊥), and a map to
        // a coarser level where ⊥ and some values go to 0 (⊥ at the top).
        std::vector<uint32_t> domain(qis);
        std::vector<std::vector<uint32_t>> map(qis);
        for (std::size_t j = 0; j < qis; ++j) {
            domain[j] = 1 + rng() % 12;
            const uint32_t groups = 1 + rng() % domain[j];
            for (uint32_t v = 0; v < domain[j]; ++v) map[j].push_back(v + 1 == domain[j] ? 0 : rng() % (groups + 1));
        }
        const int sensitive_domain = 1 + rng() % 9;
        std::vector<std::optional<std::string>> sensitive_texts;  // by id; the last one ⊥
        for (int s = 0; s < sensitive_domain; ++s)
            sensitive_texts.push_back(s + 1 == sensitive_domain ? std::nullopt : std::optional<std::string>("s" + std::to_string(s)));

        BaseClassBuilder builder(qis, histograms);
        ClassAggregator want_rows(std::pmr::new_delete_resource(), qis);
        std::vector<uint32_t> codes(qis);
        std::vector<std::string> texts(qis);
        std::vector<Value> generalized(qis);
        for (int r = 0; r < rows; ++r) {
            for (std::size_t j = 0; j < qis; ++j) {
                codes[j] = rng() % domain[j];
                const uint32_t g = map[j][codes[j]];
                texts[j] = "g" + std::to_string(g);
                generalized[j] = g == 0 ? Value() : Value(texts[j]);
            }
            const uint32_t s = rng() % sensitive_domain;
            builder.add(codes.data(), histograms ? s : 0);
            want_rows.add(generalized.data(), histograms && sensitive_texts[s] ? Value(*sensitive_texts[s]) : Value());
        }
        std::vector<const uint32_t*> maps;
        for (const auto& m : map) maps.push_back(m.data());
        NodeClasses rolled = roll_up(builder.finish(), maps, histograms ? sensitive_domain : 1, {}, nullptr, nullptr);
        ContingencyTable got = contingency_table(rolled, histograms ? sensitive_texts : std::vector<std::optional<std::string>>{});
        ContingencyTable want = want_rows.finish();
        ASSERT_EQ(got.classes(), want.classes()) << "round " << round;
        EXPECT_EQ(got.rows(), want.rows());
        EXPECT_EQ(got.values(), want.values());
        EXPECT_EQ(got.base(), want.base());
        EXPECT_EQ(*k_anonymity(got), *k_anonymity(want));
        EXPECT_EQ(*records_at_risk(got, 0.2), *records_at_risk(want, 0.2));
        if (histograms) {
            EXPECT_EQ(*l_entropy(got), *l_entropy(want));
            EXPECT_EQ(*t_equal(got), *t_equal(want));
            EXPECT_EQ(*delta_disclosure(got), *delta_disclosure(want));
            EXPECT_EQ(*a_know(got), *a_know(want));
        }
        // The classes themselves, not only what the measures see: sizes with their histograms.
        std::multiset<std::vector<ContingencyTable::Pair>> got_shapes, want_shapes;
        for (const auto& c : got.all())
            for (int64_t m = 0; m < c.multiplicity; ++m) got_shapes.emplace(got.counts(c).begin(), got.counts(c).end());
        for (const auto& c : want.all())
            for (int64_t m = 0; m < c.multiplicity; ++m) want_shapes.emplace(want.counts(c).begin(), want.counts(c).end());
        EXPECT_EQ(got_shapes, want_shapes);
    }
}
