#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <random>

#include "common/error.hpp"
#include "test_support.hpp"
#include "../common/read_file.hpp"
#include "hierarchy/hierarchy.hpp"

using namespace privrisk;
using privrisk_test::error_of;

namespace {

std::string read_shared(const std::string& rel) {
    return privrisk_test::read_file(std::string(PRIVRISK_SHARED_DIR) + "/" + rel);
}

std::unique_ptr<Hierarchy> tree(const std::string& csv) { return make_tree_hierarchy("h", parse_csv(csv, ";")); }

std::string gen(const Hierarchy& h, const std::string& v, int level) {
    std::string scratch;
    Value r = h.generalize(v, level, scratch);
    return r ? std::string(*r) : "⊥";
}

// The ancestors of `v` at levels 1, 2, … (⊥ when suppressed).
std::vector<std::string> ancestors(const Hierarchy& h, const std::string& v) {
    std::vector<std::string> out;
    for (int level = 1; level <= h.height(); ++level) out.push_back(gen(h, v, level));
    return out;
}
using Chain = std::vector<std::string>;

}  // namespace

// ARX Adult hierarchies (shared/data/adult): the ancestors named in the foundation issue.
TEST(AdultHierarchies, AgeAncestorsOf39) {
    auto age = make_tree_hierarchy("age", parse_csv(read_shared("data/adult/adult_hierarchy_age.csv"), ";"));
    EXPECT_EQ(age->height(), 4);
    EXPECT_EQ(gen(*age, "39", 0), "39");
    EXPECT_EQ(ancestors(*age, "39"), (Chain{"35-39", "30-39", "20-39", "⊥"}));
    EXPECT_EQ(gen(*age, "35-39", 2), "30-39");  // an inner node generalizes further
    EXPECT_EQ(age->level_of("20-39"), 3);
}

TEST(AdultHierarchies, MaritalStatus) {
    auto m = make_tree_hierarchy("marital", parse_csv(read_shared("data/adult/adult_hierarchy_marital-status.csv"), ";"));
    EXPECT_EQ(m->height(), 2);
    std::map<std::string, std::string> expected = {
        {"Married-civ-spouse", "spouse present"}, {"Married-AF-spouse", "spouse present"},
        {"Divorced", "spouse not present"},       {"Never-married", "spouse not present"},
        {"Separated", "spouse not present"},      {"Widowed", "spouse not present"},
        {"Married-spouse-absent", "spouse not present"}};
    for (const auto& [leaf, parent] : expected) {
        EXPECT_EQ(gen(*m, leaf, 1), parent) << leaf;
        EXPECT_EQ(gen(*m, leaf, 2), "⊥") << leaf;
        EXPECT_TRUE(m->generalizes(std::string_view(parent), std::string_view(leaf)));
        EXPECT_FALSE(m->generalizes(std::string_view(leaf), std::string_view(parent)));
    }
    EXPECT_TRUE(m->consistent(std::string_view("Divorced"), std::string_view("spouse not present")));
    EXPECT_FALSE(m->consistent(std::string_view("Divorced"), std::string_view("spouse present")));
    EXPECT_FALSE(m->consistent(std::string_view("Divorced"), std::string_view("Widowed")));
    EXPECT_TRUE(m->consistent(std::nullopt, std::string_view("Widowed")));
}

TEST(AdultHierarchies, AllLoad) {
    for (std::string f : {"age", "education", "marital-status", "native-country", "occupation", "race",
                          "salary-class", "sex", "workclass"}) {
        auto h = make_tree_hierarchy(f, parse_csv(read_shared("data/adult/adult_hierarchy_" + f + ".csv"), ";"));
        EXPECT_GE(h->height(), 1) << f;
    }
}

TEST(TreeHierarchy, ValidationNamesTheLine) {
    EXPECT_EQ(error_of([] { tree(""); }), "hierarchy \"h\" is empty: no line holds a value");
    EXPECT_EQ(error_of([] { tree("\n\n"); }), "hierarchy \"h\" is empty: no line holds a value");
    EXPECT_EQ(error_of([] { tree("a\n"); }),
              "line 1: a hierarchy line needs at least two columns, the value and the root (e.g. \"a;*\")");
    EXPECT_EQ(error_of([] { tree("a;x;*\nb;x;y;*\n"); }),
              "line 2: unequal depth: value \"b\" reaches the root in 3 steps, but the value on line 1 in 2");
    EXPECT_EQ(error_of([] { tree("a;x;*\nb;x\n"); }), "line 2: has 2 fields, expected 3 as on line 1");
    EXPECT_EQ(error_of([] { tree("a;x;*\nb;;*\n"); }), "line 2: field 2 is empty");
    EXPECT_EQ(error_of([] { tree("a;x;*\nb;x;ALL\n"); }),
              "line 2: the last column is the root and must be \"*\" as on line 1, found \"ALL\"");
    EXPECT_EQ(error_of([] { tree("a;x;*\na;x;*\n"); }), "line 2: duplicate leaf \"a\" (first on line 1)");
    EXPECT_EQ(error_of([] { tree("a;x;*\na;y;*\n"); }),
              "line 2: value \"a\" has two parents: \"x\" on line 1 and \"y\" here");
    EXPECT_EQ(error_of([] { tree("a;x;p;*\nb;x;q;*\n"); }),
              "line 2: levels are not nested: the level-1 group \"x\" lies under \"p\" on line 1 but under \"q\" here");
    EXPECT_EQ(error_of([] { tree("a;b;*\nb;c;*\n"); }),
              "line 2: value \"b\" has two parents: \"c\" at level 1 here and \"*\" at level 2 on line 1");
    EXPECT_EQ(error_of([] { tree("a;*;*\n"); }),
              "line 1: the root label \"*\" appears at level 1; it may only stand in the last column");
}

TEST(TreeHierarchy, ChainsMayRepeatALabel) {
    auto h = tree("Other;Other;*\nx;g;*\n");
    EXPECT_EQ(gen(*h, "Other", 1), "Other");
    EXPECT_TRUE(h->generalizes(std::string_view("Other"), std::string_view("Other")));
}

TEST(TreeHierarchy, LookupErrors) {
    auto h = tree("a;x;*\nb;x;*\n");
    EXPECT_EQ(error_of([&] { gen(*h, "zz", 1); }), "value \"zz\" is not in hierarchy \"h\"");
    EXPECT_EQ(error_of([&] { gen(*h, "a", 3); }), "level 3 is out of range for hierarchy \"h\" (levels 0..2)");
    EXPECT_EQ(error_of([&] { gen(*h, "a", -1); }), "level -1 is out of range for hierarchy \"h\" (levels 0..2)");
    EXPECT_EQ(error_of([&] { gen(*h, "x", 0); }),
              "value \"x\" is at level 1 of hierarchy \"h\", above the requested level 0");
}

// Brute force: on random trees, generalizes/consistent agree with ancestor sets built from the CSV lines.
TEST(TreeHierarchy, RandomTreesAgreeWithAncestorSets) {
    std::mt19937 rng(7);
    for (int round = 0; round < 200; ++round) {
        int height = 1 + rng() % 4;
        int leaves = 1 + rng() % 12;
        std::string csv;
        std::map<std::string, std::vector<std::string>> path;  // leaf -> labels at levels 0..height-1
        for (int i = 0; i < leaves; ++i) {
            std::vector<std::string> p{"v" + std::to_string(i)};
            int group = i;
            for (int l = 1; l < height; ++l) {
                group = group / 2 + (rng() % 2 ? 0 : 0);  // nested by construction: halve the group id
                p.push_back("L" + std::to_string(l) + "_" + std::to_string(group));
            }
            path[p[0]] = p;
            for (auto& s : p) csv += s + ";";
            csv += "*\n";
        }
        auto h = make_tree_hierarchy("r", parse_csv(csv, ";"));
        ASSERT_EQ(h->height(), height);
        std::vector<std::string> nodes;
        for (auto& [leaf, p] : path)
            for (auto& s : p) nodes.push_back(s);
        for (auto& [leaf, p] : path)
            for (int l = 0; l < height; ++l) EXPECT_EQ(gen(*h, leaf, l), p[l]);
        for (int t = 0; t < 50; ++t) {
            const std::string& a = nodes[rng() % nodes.size()];
            const std::string& b = nodes[rng() % nodes.size()];
            bool brute = a == b;  // is a an ancestor-or-self of b?
            for (auto& [leaf, p] : path) {
                auto ia = std::find(p.begin(), p.end(), a), ib = std::find(p.begin(), p.end(), b);
                if (ia != p.end() && ib != p.end() && ia >= ib) brute = true;
            }
            EXPECT_EQ(h->generalizes(std::string_view(a), std::string_view(b)), brute) << a << " " << b;
            bool brute_rev = b == a;
            for (auto& [leaf, p] : path) {
                auto ia = std::find(p.begin(), p.end(), a), ib = std::find(p.begin(), p.end(), b);
                if (ia != p.end() && ib != p.end() && ib >= ia) brute_rev = true;
            }
            EXPECT_EQ(h->consistent(std::string_view(a), std::string_view(b)), brute || brute_rev);
        }
    }
}

TEST(IntervalHierarchy, AlignedNestedIntervals) {
    auto h = make_interval_hierarchy("age", 0, 100, {5, 10, 20});
    EXPECT_EQ(h->height(), 4);
    EXPECT_EQ(ancestors(*h, "39"), (Chain{"[35, 40)", "[30, 40)", "[20, 40)", "⊥"}));
    EXPECT_EQ(gen(*h, "2.5", 1), "[0, 5)");
    EXPECT_EQ(gen(*h, "100", 3), "[100, 120)");
    EXPECT_EQ(gen(*h, "[35, 40)", 3), "[20, 40)");
    EXPECT_EQ(h->level_of("[20, 40)"), 3);
    EXPECT_TRUE(h->generalizes(std::string_view("[30, 40)"), std::string_view("31")));
    EXPECT_FALSE(h->generalizes(std::string_view("[30, 40)"), std::string_view("40")));
    EXPECT_EQ(error_of([&] { gen(*h, "101", 1); }), "value \"101\" is outside the range [0, 100] of interval hierarchy \"age\"");
    EXPECT_EQ(error_of([&] { h->level_of("[31, 36)"); }),
              "value \"[31, 36)\" is not in hierarchy \"age\": expected a number in [0, 100] or one of its interval "
              "labels such as \"[0, 5)\"");
    EXPECT_EQ(error_of([&] { gen(*h, "nan", 1); }).rfind("value \"nan\" is not in hierarchy", 0), 0u);
    EXPECT_THROW(make_interval_hierarchy("x", 0, 100, {5, 7}), Error);
    EXPECT_THROW(make_interval_hierarchy("x", 0, 100, {10, 5}), Error);
    EXPECT_THROW(make_interval_hierarchy("x", 0, 100, {0}), Error);
    EXPECT_THROW(make_interval_hierarchy("x", 5, 5, {1}), Error);
    EXPECT_THROW(make_interval_hierarchy("x", 0, 1, {}), Error);
}

TEST(PrefixHierarchy, MasksTrailingCharacters) {
    auto h = make_prefix_hierarchy("zip", 5);
    EXPECT_EQ(h->height(), 5);
    EXPECT_EQ(gen(*h, "47677", 1), "4767*");
    EXPECT_EQ(gen(*h, "47677", 3), "47***");
    EXPECT_EQ(gen(*h, "47677", 5), "⊥");
    EXPECT_EQ(gen(*h, "476**", 4), "4****");
    EXPECT_THROW(gen(*h, "Zürich", 0), Error);  // 6 code points > 5
}

TEST(PrefixHierarchy, CountsCodePointsAndRejectsLongValues) {
    auto h = make_prefix_hierarchy("city", 6);
    EXPECT_EQ(gen(*h, "Zürich", 2), "Züri**");
    EXPECT_EQ(gen(*h, "Zürich", 5), "Z*****");
    EXPECT_EQ(error_of([&] { gen(*h, "Lausanne", 1); }),
              "value \"Lausanne\" is not in hierarchy \"city\": it has 8 characters, more than the hierarchy's 6");
    EXPECT_TRUE(h->consistent(std::string_view("Zü****"), std::string_view("Zürich")));
    EXPECT_FALSE(h->consistent(std::string_view("Zo****"), std::string_view("Zürich")));
    EXPECT_THROW(make_prefix_hierarchy("x", 0), Error);
}

TEST(DateHierarchy, DayMonthYear) {
    auto h = make_date_hierarchy("birth");
    EXPECT_EQ(gen(*h, "1975-05-10", 1), "1975-05");
    EXPECT_EQ(gen(*h, "1975-05-10", 2), "1975");
    EXPECT_EQ(gen(*h, "1975-05", 2), "1975");
    EXPECT_EQ(gen(*h, "1975-05-10", 3), "⊥");
    EXPECT_EQ(gen(*h, "2024-02-29", 0), "2024-02-29");
    EXPECT_THROW(gen(*h, "2023-02-29", 1), Error);
    EXPECT_THROW(gen(*h, "1975-13-01", 1), Error);
    EXPECT_THROW(gen(*h, "10/05/1975", 1), Error);
    EXPECT_TRUE(h->generalizes(std::string_view("1975"), std::string_view("1975-05-10")));
    EXPECT_FALSE(h->generalizes(std::string_view("1975-06"), std::string_view("1975-05-10")));
}

// leaves_at, which a release's index path reads the raw column by: for every label of every
// level below the top of ARX's Adult hierarchies, exactly the values that generalize to it
// (against generalize() itself): the leaves and the inner nodes below the level, which a raw
// column may hold as well (a row inserted after the rule's coverage check); nothing more than
// the limit. Leaves only, it missed such rows (found by a hostile test).
TEST(HierarchyLeavesAt, EqualsTheValuesThatGeneralizeToTheLabel) {
    for (const char* file : {"age", "education", "marital-status", "native-country", "occupation", "workclass"}) {
        auto h = make_tree_hierarchy(file, parse_csv(read_shared(std::string("data/adult/adult_hierarchy_") + file + ".csv"), ";"));
        ASSERT_TRUE(h->lists_leaves());
        const auto records = parse_csv(read_shared(std::string("data/adult/adult_hierarchy_") + file + ".csv"), ";");
        // Every value generalize() takes at a level: the leaves, and the inner nodes below it
        // (field i of a line is the leaf's ancestor at level i), each once.
        int checked = 0;
        for (int level = 0; level < h->height(); ++level) {
            std::set<std::string> values;
            for (const auto& r : records)
                for (int i = 0; i <= level && i < static_cast<int>(r.fields.size()); ++i) values.insert(r.fields[i]);
            std::map<std::string, std::vector<std::string>> expected;
            for (const auto& value : values) expected[gen(*h, value, level)].push_back(value);
            for (auto& [label, want] : expected) {
                auto got = h->leaves_at(label, level, want.size());
                ASSERT_TRUE(got.has_value()) << file << " " << label;
                std::sort(want.begin(), want.end());
                std::sort(got->begin(), got->end());
                EXPECT_EQ(*got, want) << file << " label " << label << " at " << level;
                if (want.size() > 1) {
                    EXPECT_FALSE(h->leaves_at(label, level, want.size() - 1).has_value());
                }
                ++checked;
            }
            // A label of another level, or none at all, has no leaf at this one.
            EXPECT_TRUE(h->leaves_at("no such label", level, 10)->empty());
        }
        EXPECT_GT(checked, h->height());
    }
    EXPECT_FALSE(make_interval_hierarchy("i", 0, 100, {10})->leaves_at("[0, 10)", 1, 100).has_value());
    EXPECT_FALSE(make_prefix_hierarchy("p", 5)->lists_leaves());
}
