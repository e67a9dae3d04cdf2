// Proposition 1 as a randomized test: whenever check_risk_bound holds, the risk
// of a random disclosure against the true dictionary is at most the risk against
// the estimated one; when a condition is broken on purpose, the bound does fail
// in some instances (so the check is not vacuous). Plus the worked example's negative case.
#include <gtest/gtest.h>

#include <random>

#include "hierarchy/hierarchy.hpp"
#include "dtrisk/identification.hpp"
#include "dtrisk/risk_bound.hpp"
#include "dtrisk/sensitivity.hpp"
#include "test_support.hpp"

using namespace privrisk;

namespace {

std::vector<Value> values_of(const Tuple& t) {
    std::vector<Value> v;
    for (const auto& x : t) v.push_back(x ? Value(*x) : Value());
    return v;
}

double risk(const std::vector<const Hierarchy*>& hs, const std::vector<DictionaryEntry>& dictionary,
            const std::vector<Tuple>& released, const std::vector<double>& phi) {
    MatchCounter m(hs);
    for (const auto& e : dictionary) m.add_entry(values_of(e.values));
    double sum = 0;
    for (std::size_t i = 0; i < released.size(); ++i) sum += disclosure_loss(phi[i], m.count_one(values_of(released[i])));
    return sum / released.size();
}

}  // namespace

TEST(RiskBound, WorkedExample) {
    auto zip = make_tree_hierarchy("zip", parse_csv("47906;4790*;*\n47907;4790*;*\n47901;4790*;*\n10001;1000*;*\n", ";"));
    auto age = make_interval_hierarchy("age", 0, 150, {10});
    std::vector<const Hierarchy*> hs = {zip.get(), age.get()};
    std::vector<DictionaryEntry> estimated = {{"1", {"47906", "34"}}, {"2", {"47907", "36"}}, {"3", {"47901", "25"}}};
    std::vector<DictionaryEntry> truth = {{"1", {"47906", "[30, 40)"}}, {"2", {"4790*", "36"}}, {"3", {"47901", "25"}},
                                          {"4", {"47906", "31"}}, {"5", {"47907", std::nullopt}}};
    std::vector<Tuple> records = {{"47906", "34"}, {"47907", "36"}, {"47901", "25"}};
    EXPECT_TRUE(check_risk_bound(hs, estimated, truth, records).holds());
    EXPECT_NEAR(risk(hs, truth, records, {1, 1, 1}), 0.833333, 1e-6);
    EXPECT_NEAR(risk(hs, estimated, records, {1, 1, 1}), 1.0, 1e-12);
    truth.erase(truth.begin() + 2);  // remove id 3: not dominated
    auto c = check_risk_bound(hs, estimated, truth, records);
    EXPECT_FALSE(c.dominated);
    EXPECT_NE(c.reason.find("\"3\""), std::string::npos) << c.reason;
    estimated.push_back({"1", {"10001", "34"}});
    EXPECT_FALSE(check_risk_bound(hs, estimated, truth, records).unique_ids);
    EXPECT_FALSE(check_risk_bound(hs, {{"9", {"10001", "34"}}}, truth, records).counterparts);
}

TEST(RiskBound, Proposition1Randomized) {
    auto zip = make_tree_hierarchy("zip", parse_csv("47906;4790*;*\n47907;4790*;*\n47901;4790*;*\n10001;1000*;*\n10002;1000*;*\n", ";"));
    auto age = make_interval_hierarchy("age", 0, 99, {10, 50});
    std::vector<const Hierarchy*> hs = {zip.get(), age.get()};
    const std::vector<std::string> zips = {"47906", "47907", "47901", "10001", "10002"};
    std::mt19937 gen(29);
    std::string scratch;
    auto generalize = [&](const Tuple& t, int max_steps) {
        Tuple out = t;
        for (std::size_t j = 0; j < t.size(); ++j) {
            if (!t[j]) continue;
            const int from = hs[j]->level_of(*t[j]);
            const int to = std::min(hs[j]->height(), from + int(gen() % (max_steps + 1)));
            Value g = hs[j]->generalize(*t[j], to, scratch);
            out[j] = g ? std::optional<std::string>(std::string(*g)) : std::nullopt;
        }
        return out;
    };
    auto random_leaf = [&] { return Tuple{zips[gen() % zips.size()], std::to_string(gen() % 100)}; };
    int held = 0, broken = 0, broken_and_exceeded = 0;
    for (int trial = 0; trial < 400; ++trial) {
        std::vector<DictionaryEntry> estimated, truth;
        const int n = 3 + gen() % 20;
        for (int i = 0; i < n; ++i) estimated.push_back({"e" + std::to_string(i), random_leaf()});
        std::vector<Tuple> records;
        for (int i = 0; i < n; ++i)
            if (gen() % 2) records.push_back(generalize(estimated[gen() % n].values, 1));
        if (records.empty()) records.push_back(estimated[0].values);
        for (const auto& e : estimated) truth.push_back({e.id, generalize(e.values, 2)});
        for (int i = 0; i < int(gen() % 10); ++i) truth.push_back({"t" + std::to_string(i), generalize(random_leaf(), 1)});
        const int breach = trial % 4 == 3 ? 1 + gen() % 3 : 0;
        if (breach == 1) truth.erase(truth.begin() + gen() % n);                    // an entity missing
        if (breach == 2) truth[gen() % n].values = random_leaf();                   // an entity changed
        if (breach == 3) records.push_back(random_leaf());                          // a record with no counterpart
        std::vector<Tuple> released;
        std::vector<double> phi;
        for (const auto& r : records) {
            released.push_back(generalize(r, 2));
            phi.push_back(std::uniform_real_distribution<>(0.1, 2)(gen));
        }
        auto check = check_risk_bound(hs, estimated, truth, records);
        const double r_true = risk(hs, truth, released, phi), r_est = risk(hs, estimated, released, phi);
        if (check.holds()) {
            ++held;
            EXPECT_LE(r_true, r_est + 1e-12) << trial;
        } else {
            ++broken;
            broken_and_exceeded += r_true > r_est + 1e-12;
        }
    }
    EXPECT_GT(held, 250);
    EXPECT_GT(broken, 50);
    EXPECT_GT(broken_and_exceeded, 0);  // the conditions are needed
}
