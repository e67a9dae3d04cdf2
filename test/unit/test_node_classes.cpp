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
        const int sensitive_domain = 1 + rng() % 9;  // values s0, s1, …; the last one ⊥
        auto sensitive_text = [&](int s) {
            return s + 1 == sensitive_domain ? std::nullopt : std::optional<std::string>("s" + std::to_string(s));
        };
        // As the class reader gives them: the sensitive values met, by id in order of first appearance.
        std::vector<std::optional<std::string>> sensitive_texts;
        std::vector<int> id_of(sensitive_domain, -1);

        // Pairs are compacted every few rows in some rounds, so the counted pairs are merged many times.
        BaseClassBuilder builder(qis, histograms, round % 2 ? 1 + rng() % 300 : BaseClassBuilder::kCompactRows);
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
            const int s = rng() % sensitive_domain;
            if (id_of[s] < 0) {
                id_of[s] = static_cast<int>(sensitive_texts.size());
                sensitive_texts.push_back(sensitive_text(s));
            }
            const std::optional<std::string> text = sensitive_text(s);
            builder.add(codes.data(), histograms ? id_of[s] : 0);
            want_rows.add(generalized.data(), histograms && text ? Value(*text) : Value());
        }
        std::vector<const uint32_t*> maps;
        for (const auto& m : map) maps.push_back(m.data());
        NodeClasses rolled = roll_up(builder.finish(), maps, histograms ? static_cast<uint32_t>(sensitive_texts.size()) : 1, {}, nullptr, nullptr);
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

// With a sensitive column, what the builder holds grows with the distinct (class,
// value) pairs, not with the rows: a million rows of 100 pairs, compacted every
// 4,096 rows, hold a few hundred kB where a pair per row would take 8 MB.
TEST(NodeClasses, BuilderHoldsItsDistinctPairsNotItsRows) {
    std::mt19937 rng(7);
    BaseClassBuilder builder(1, true, 4096);
    uint32_t code = 0;
    for (int r = 0; r < 1000000; ++r) {
        code = rng() % 20;
        builder.add(&code, rng() % 5);
    }
    EXPECT_LT(builder.bytes(), std::size_t(3) << 20);
    NodeClasses classes = builder.finish();
    ASSERT_EQ(classes.classes(), 20u);
    EXPECT_EQ(classes.pairs.size(), 100u);
    int64_t total = 0;
    for (std::size_t c = 0; c < classes.classes(); ++c) total += classes.sizes[c];
    EXPECT_EQ(total, 1000000);
    int64_t pairs_total = 0;
    for (const auto& p : classes.pairs) pairs_total += p.second;
    EXPECT_EQ(pairs_total, 1000000);
}
