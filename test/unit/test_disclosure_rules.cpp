// Rule composition ([LSFB09] Prop. 3): applying hide/gen rules one at a time,
// in any order and any grouping, equals the combined released_level form.
#include <gtest/gtest.h>

#include <algorithm>
#include <numeric>
#include <random>

#include "release/disclosure_rules.hpp"

using namespace privrisk;

namespace {

// The released value when every rule is combined at once.
Value combined(const Hierarchy& h, Value value, const std::vector<DisclosureRule>& rules,
               const std::vector<char>& disclosed, std::string& scratch) {
    bool flags[64];
    for (std::size_t i = 0; i < rules.size(); ++i) flags[i] = disclosed[i];
    int level = released_level(rules.data(), flags, static_cast<int>(rules.size()), h.height());
    if (!value) return value;
    return h.generalize(*value, std::max(level, h.level_of(*value)), scratch);
}

Value one_rule(const Hierarchy& h, Value value, const DisclosureRule& r, bool disclose, std::string& scratch) {
    return r.op == DisclosureOp::Hide ? apply_hide(value, disclose) : apply_gen(h, value, r.level, disclose, scratch);
}

std::string text(Value v) { return v ? std::string(*v) : std::string("⊥"); }

}  // namespace

TEST(DisclosureRules, NoRuleOrAllDisclosedKeepsTheValue) {
    DisclosureRule rules[] = {{DisclosureOp::Hide, 0}, {DisclosureOp::Gen, 2}};
    bool all[] = {true, true};
    EXPECT_EQ(released_level(rules, all, 0, 4), 0);
    EXPECT_EQ(released_level(rules, all, 2, 4), 0);
    bool gen_fails[] = {true, false};
    EXPECT_EQ(released_level(rules, gen_fails, 2, 4), 2);
    bool hide_fails[] = {false, true};
    EXPECT_EQ(released_level(rules, hide_fails, 2, 4), 4);  // ⊥ wins over any generalization
}

TEST(DisclosureRules, PaperExampleHideTwice) {
    // hide(hide(T,A2,A1≠1),A2,A1≠3) = hide(T,A2,A1≠1 ∧ A1≠3) on tuples 1..4 ([LSFB09]).
    auto h = make_prefix_hierarchy("a", 2);
    const char* a2[] = {"a1", "a2", "a3", "a4"};
    std::vector<DisclosureRule> rules = {{DisclosureOp::Hide, 0}, {DisclosureOp::Hide, 0}};
    std::string scratch;
    std::vector<std::string> released;
    for (int id = 1; id <= 4; ++id) {
        std::vector<char> disclosed = {id != 1, id != 3};
        released.push_back(text(combined(*h, Value(a2[id - 1]), rules, disclosed, scratch)));
        Value seq = apply_hide(apply_hide(Value(a2[id - 1]), id != 1), id != 3);
        EXPECT_EQ(text(seq), released.back());
    }
    EXPECT_EQ(released, (std::vector<std::string>{"⊥", "a2", "⊥", "a4"}));
}

TEST(DisclosureRules, RandomRuleSetsCommuteAndAssociate) {
    auto h = make_prefix_hierarchy("zip", 5);  // height 5: 12345 → 1234* → … → ⊥
    std::mt19937 rng(20261123);
    std::uniform_int_distribution<int> digit(0, 9), count(1, 6), coin(0, 1), level(1, 5);
    int checked = 0;
    for (int trial = 0; trial < 3000; ++trial) {
        std::string leaf;
        for (int i = 0; i < 5; ++i) leaf += char('0' + digit(rng));
        Value value = trial % 17 == 0 ? Value() : Value(leaf);  // a missing value is ⊥ already
        int n = count(rng);
        std::vector<DisclosureRule> rules;
        std::vector<char> disclosed;
        for (int i = 0; i < n; ++i) {
            rules.push_back(coin(rng) && coin(rng) ? DisclosureRule{DisclosureOp::Hide, 0}
                                                   : DisclosureRule{DisclosureOp::Gen, level(rng)});
            disclosed.push_back(static_cast<char>(coin(rng)));
        }
        std::string s1, s2;
        std::string expected = text(combined(*h, value, rules, disclosed, s1));
        // Commutativity: every order of one-at-a-time application gives the combined value.
        std::vector<int> order(n);
        std::iota(order.begin(), order.end(), 0);
        for (int shuffle = 0; shuffle < 4; ++shuffle) {
            std::shuffle(order.begin(), order.end(), rng);
            std::string keep;
            Value v = value;
            for (int i : order) {
                v = one_rule(*h, v, rules[i], disclosed[i], s2);
                keep = text(v);  // own the bytes before the scratch is reused
                v = v ? Value(keep) : Value();
            }
            ASSERT_EQ(text(v), expected) << "trial " << trial;
            ++checked;
        }
        // Associativity: combine a prefix of the rules, then the rest, on the partial result.
        int split = n / 2;
        std::vector<DisclosureRule> first(rules.begin(), rules.begin() + split), rest(rules.begin() + split, rules.end());
        std::vector<char> d1(disclosed.begin(), disclosed.begin() + split), d2(disclosed.begin() + split, disclosed.end());
        std::string partial = text(combined(*h, value, first, d1, s1));
        Value mid = partial == "⊥" ? Value() : Value(partial);
        ASSERT_EQ(text(combined(*h, mid, rest, d2, s2)), expected) << "trial " << trial;
    }
    EXPECT_EQ(checked, 12000);
}
