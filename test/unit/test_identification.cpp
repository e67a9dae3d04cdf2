// Identification: |ρ| against a dictionary whose entries may be generalized or
// ⊥ ([LSFB09], §4.5), checked against a brute-force pairwise count on
// random inputs; the Jaro similarity's standard values (§4.7).
#include <gtest/gtest.h>

#include <random>

#include "common/error.hpp"
#include "hierarchy/hierarchy.hpp"
#include "dtrisk/identification.hpp"
#include "test_support.hpp"

using namespace privrisk;

namespace {

// Zip: 47906, 47907, 47901 -> 4790*; 10001 -> 1000*; both -> ⊥. Age: decades, ⊥.
std::unique_ptr<Hierarchy> zip_hierarchy() {
    return make_tree_hierarchy("zip", parse_csv("47906;4790*;*\n47907;4790*;*\n47901;4790*;*\n10001;1000*;*\n", ";"));
}

}  // namespace

TEST(Identification, ConstructedExample) {
    auto zip = zip_hierarchy();
    auto age = make_interval_hierarchy("age", 0, 150, {10});
    MatchCounter m({zip.get(), age.get()});
    const std::vector<std::vector<Value>> dictionary = {
        {"47906", "34"}, {"47906", "36"}, {"47907", "34"}, {"47901", "25"}, {"10001", "34"}, {std::nullopt, "34"},
        {"4790*", "[30, 40)"}};
    for (const auto& e : dictionary) m.add_entry(e);
    const std::vector<std::vector<Value>> released = {
        {"47906", "34"}, {"4790*", "34"}, {"4790*", "[30, 40)"}, {std::nullopt, std::nullopt}, {"47906", "[20, 30)"}};
    std::vector<uint32_t> ids;
    for (const auto& r : released) ids.push_back(m.add_released(r));
    auto counts = m.count();
    const int64_t expected[5] = {3, 4, 5, 7, 0};
    for (int i = 0; i < 5; ++i) EXPECT_EQ(counts[ids[i]], expected[i]) << i;
}

TEST(Identification, Proposition1Example) {
    auto zip = zip_hierarchy();
    auto age = make_interval_hierarchy("age", 0, 150, {10});
    // θ^true of worked example; identity release of T, then age -> decade, then zip -> 4790*.
    MatchCounter m({zip.get(), age.get()});
    for (const auto& e : std::vector<std::vector<Value>>{{"47906", "[30, 40)"}, {"4790*", "36"}, {"47901", "25"},
                                                         {"47906", "31"}, {"47907", std::nullopt}})
        m.add_entry(e);
    const std::vector<std::vector<Value>> releases[3] = {
        {{"47906", "34"}, {"47907", "36"}, {"47901", "25"}},
        {{"47906", "[30, 40)"}, {"47907", "[30, 40)"}, {"47901", "[20, 30)"}},
        {{"4790*", "34"}, {"4790*", "36"}, {"4790*", "25"}}};
    const int64_t expected[3][3] = {{1, 2, 1}, {3, 2, 1}, {2, 3, 2}};
    std::vector<std::vector<uint32_t>> ids(3);
    for (int d = 0; d < 3; ++d)
        for (const auto& r : releases[d]) ids[d].push_back(m.add_released(r));
    auto counts = m.count();
    for (int d = 0; d < 3; ++d)
        for (int i = 0; i < 3; ++i) EXPECT_EQ(counts[ids[d][i]], expected[d][i]) << d << " " << i;
}

// Random hierarchies' values, random generalizations and ⊥ on both sides: the
// grouped count equals the pairwise definition (comparable or ⊥ on every attribute).
TEST(Identification, GroupedCountEqualsPairwiseDefinition) {
    std::mt19937 gen(3);
    auto zip = zip_hierarchy();
    auto age = make_interval_hierarchy("age", 0, 99, {5, 10, 50});
    std::vector<const Hierarchy*> hs = {zip.get(), age.get(), nullptr};
    const std::vector<std::string> zips = {"47906", "47907", "47901", "10001"};
    std::string scratch;
    auto random_tuple = [&] {
        std::vector<std::string> raw = {zips[gen() % 4], std::to_string(gen() % 100), std::string(1, char('a' + gen() % 3))};
        std::vector<std::optional<std::string>> t(3);
        for (int j = 0; j < 3; ++j) {
            int height = hs[j] ? hs[j]->height() : 1;
            int level = gen() % 3 == 0 ? int(gen() % (height + 1)) : 0;
            if (level == height) continue;  // ⊥
            if (!hs[j]) {
                t[j] = raw[j];
                continue;
            }
            Value g = hs[j]->generalize(raw[j], level, scratch);
            if (g) t[j] = std::string(*g);
        }
        return t;
    };
    auto as_values = [](const std::vector<std::optional<std::string>>& t) {
        std::vector<Value> v;
        for (const auto& x : t) v.push_back(x ? Value(*x) : Value());
        return v;
    };
    for (int trial = 0; trial < 40; ++trial) {
        MatchCounter m(hs);
        std::vector<std::vector<std::optional<std::string>>> dict, rel;
        for (int i = 0; i < 60; ++i) dict.push_back(random_tuple());
        for (int i = 0; i < 40; ++i) rel.push_back(random_tuple());
        for (const auto& e : dict) m.add_entry(as_values(e));
        std::vector<uint32_t> ids;
        for (const auto& r : rel) ids.push_back(m.add_released(as_values(r)));
        auto counts = m.count();
        for (std::size_t i = 0; i < rel.size(); ++i) {
            int64_t brute = 0;
            for (const auto& e : dict) {
                bool ok = true;
                for (int j = 0; j < 3 && ok; ++j) {
                    if (!rel[i][j] || !e[j]) continue;
                    ok = hs[j] ? hs[j]->consistent(Value(*rel[i][j]), Value(*e[j])) : *rel[i][j] == *e[j];
                }
                brute += ok;
            }
            EXPECT_EQ(counts[ids[i]], brute) << trial << " " << i;
        }
    }
}

TEST(Identification, JaroStandardValues) {
    EXPECT_NEAR(jaro("MARTHA", "MARHTA"), 0.944444, 1e-6);
    EXPECT_NEAR(jaro("DWAYNE", "DUANE"), 0.822222, 1e-6);
    EXPECT_NEAR(jaro("DIXON", "DICKSONX"), 0.766667, 1e-6);
    EXPECT_NEAR(jaro("CRATE", "TRACE"), 0.733333, 1e-6);
    EXPECT_NEAR(jaro("West Lafayette", "W. Lafayette"), 0.779582, 1e-6);
    EXPECT_EQ(jaro("abc", "xyz"), 0);
    EXPECT_EQ(jaro("", ""), 1);
    EXPECT_EQ(jaro("a", ""), 0);
    // Jaro mode counts per attribute at the threshold; ⊥ matches anything.
    MatchCounter m({nullptr}, MatchCounter::Mode::Jaro, 0.8);
    for (Value v : {Value("MARTHA"), Value("DWAYNE"), Value("CRATE"), Value()}) m.add_entry({v});
    uint32_t a = m.add_released({Value("MARHTA")}), b = m.add_released({Value("DUANE")}), c = m.add_released({Value("TRACE")});
    auto counts = m.count();
    EXPECT_EQ(counts[a], 2);  // MARTHA and ⊥
    EXPECT_EQ(counts[b], 2);  // DWAYNE (0.82) and ⊥
    EXPECT_EQ(counts[c], 1);  // only ⊥: CRATE is 0.73
}

// released_values() returns views that stay valid while new values are coded
// (optimal_generalization keeps them across counting generalized tuples). A
// vector of strings moved short strings on growth and left the views dangling.
TEST(Identification, ReleasedValuesOutliveNewCodes) {
    auto age = make_interval_hierarchy("age", 0, 1000, {10, 100});
    MatchCounter m({age.get()});
    std::vector<uint32_t> ids;
    for (int v = 0; v < 60; ++v) ids.push_back(m.add_released({std::to_string(v)}));
    std::vector<std::vector<Value>> kept;
    for (uint32_t id : ids) kept.push_back(m.released_values(id));
    for (int v = 60; v < 2000; ++v) m.count_one({std::to_string(v % 1000)});  // codes past every growth step
    for (int v = 0; v < 60; ++v) {
        ASSERT_TRUE(kept[v][0].has_value());
        EXPECT_EQ(std::string(*kept[v][0]), std::to_string(v));
    }
}
