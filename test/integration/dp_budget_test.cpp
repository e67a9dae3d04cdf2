// Differentially private releases against a live server: the budget holds under
// concurrent spenders, and dp_release's own parallel plan samples the rows a
// serial plan samples.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <set>
#include <thread>
#include <vector>

#include "../common/notices.hpp"
#include "server.hpp"

using privrisk_test::Notices;

namespace {

void make_census(pqxx::connection& c, const std::string& table, int rows) {
    itest::exec(c, "CREATE TABLE " + table + " AS SELECT g AS id, 17 + (g::int8 * 7919) % 74 AS age, "
                   "CASE WHEN g % 3 = 0 THEN 'F' ELSE 'M' END AS sex FROM generate_series(1, " + std::to_string(rows) + ") g");
}

}  // namespace

// Eight connections each try to spend epsilon 0.3 of a budget of 1 at the same
// moment, each holding its transaction open a little after releasing. Exactly
// three fit: the ledger sums to 0.9, holds three rows, and exactly the three
// accepted releases' tables exist.
TEST(DpBudget, ConcurrentSpendersNeverOverspend) {
    itest::Database db("privrisk_it_dp_budget");
    {
        pqxx::connection c{db.conninfo()};
        make_census(c, "census", 100000);
        itest::exec(c, "SELECT privrisk.interval_hierarchy('age_h', 0, 100, ARRAY[5, 10, 20, 100])");
        itest::exec(c, "SELECT privrisk.set_budget('census', 1.0, 1e-2)");
    }
    const int spenders = 8;
    std::atomic<int> ready{0};
    std::vector<int> accepted(spenders, 0);
    std::vector<std::string> errors(spenders);
    std::vector<std::thread> threads;
    for (int i = 0; i < spenders; ++i)
        threads.emplace_back([&, i] {
            pqxx::connection c{db.conninfo()};
            ++ready;
            while (ready.load() < spenders) std::this_thread::yield();
            try {
                pqxx::work tx{c};
                tx.exec("CREATE TABLE release_" + std::to_string(i) +
                        " AS SELECT * FROM privrisk.dp_release('census', ARRAY['age', 'sex'], ARRAY['age_h', NULL], "
                        "0.3, 1e-4, levels => ARRAY[2, 0]) AS r(age text, sex text)");
                tx.exec("SELECT pg_sleep(0.05)");
                tx.commit();
                accepted[i] = 1;
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    for (auto& t : threads) t.join();
    int n_accepted = 0;
    for (int i = 0; i < spenders; ++i) {
        n_accepted += accepted[i];
        if (!accepted[i]) {
            EXPECT_NE(errors[i].find("would overspend the privacy budget"), std::string::npos) << errors[i];
        }
    }
    EXPECT_EQ(n_accepted, 3);
    pqxx::connection c{db.conninfo()};
    pqxx::nontransaction tx{c};
    auto ledger = tx.exec("SELECT count(*), sum(epsilon), sum(delta) FROM privrisk.budget_ledger")[0];
    EXPECT_EQ(ledger[0].as<int>(), n_accepted);
    EXPECT_LE(ledger[1].as<double>(), 1.0 + 1e-12);
    EXPECT_NEAR(ledger[1].as<double>(), 0.3 * n_accepted, 1e-12);
    auto budget = tx.exec("SELECT spent_epsilon, spent_delta FROM privrisk.budget")[0];
    EXPECT_NEAR(budget[0].as<double>(), ledger[1].as<double>(), 1e-12);
    EXPECT_NEAR(budget[1].as<double>(), ledger[2].as<double>(), 1e-15);
    std::set<std::string> tables;
    for (auto row : tx.exec("SELECT relname FROM pg_class WHERE relname LIKE 'release\\_%' AND relkind = 'r' AND relnamespace = 'public'::regnamespace"))
        tables.insert(row[0].as<std::string>());
    std::set<std::string> expected;
    for (int i = 0; i < spenders; ++i)
        if (accepted[i]) expected.insert("release_" + std::to_string(i));
    EXPECT_EQ(tables, expected);
    for (const auto& t : expected)  // each accepted release holds its sample (beta = 1 - e^-0.3 = 0.26)
        EXPECT_NEAR(tx.exec("SELECT count(*) FROM " + tx.quote_name(t))[0][0].as<double>(), 25918, 4 * 139);
}

// A partitioned source is read through SQL, where the planner may go parallel.
// With a seed, a forced parallel plan (auto_explain shows it) releases exactly
// what a serial plan releases.
TEST(DpBudget, ParallelPlanSamplesTheSerialRows) {
    itest::Database db("privrisk_it_dp_parallel");
    pqxx::connection c{db.conninfo()};
    itest::exec(c, "CREATE TABLE census (id int, age int, sex text) PARTITION BY RANGE (id)");
    itest::exec(c, "CREATE TABLE census_a PARTITION OF census FOR VALUES FROM (0) TO (150000)");
    itest::exec(c, "CREATE TABLE census_b PARTITION OF census FOR VALUES FROM (150000) TO (400000)");
    itest::exec(c, "INSERT INTO census SELECT g, 17 + (g::int8 * 7919) % 74, CASE WHEN g % 3 = 0 THEN 'F' ELSE 'M' END "
                   "FROM generate_series(1, 300000) g");
    itest::exec(c, "ANALYZE census");
    itest::exec(c, "SELECT privrisk.interval_hierarchy('age_h', 0, 100, ARRAY[5, 10, 20, 100])");
    itest::exec(c, "SELECT privrisk.set_budget('census', 10, 1e-2)");
    const std::string release =
        "SELECT string_agg(concat(age, '|', sex, '|', n), ',' ORDER BY age, sex) FROM privrisk.dp_release('census', "
        "ARRAY['age', 'sex'], ARRAY['age_h', NULL], 1, 1e-5, levels => ARRAY[0, 0], seed => 7, output => 'classes') "
        "AS r(age text, sex text, n bigint)";
    itest::exec(c, "SET max_parallel_workers_per_gather = 0");
    std::string serial = pqxx::nontransaction(c).exec(release)[0][0].as<std::string>();

    itest::exec(c, "LOAD 'auto_explain'");
    itest::exec(c, "SET auto_explain.log_min_duration = 0");
    itest::exec(c, "SET auto_explain.log_nested_statements = on");
    itest::exec(c, "SET client_min_messages = log");
    itest::exec(c, "SET max_parallel_workers_per_gather = 4");
    itest::exec(c, "SET parallel_setup_cost = 0");
    itest::exec(c, "SET parallel_tuple_cost = 0");
    itest::exec(c, "SET min_parallel_table_scan_size = 0");
    Notices notices(c);
    std::string parallel = pqxx::nontransaction(c).exec(release)[0][0].as<std::string>();
    bool saw_parallel_scan = false;
    for (const auto& line : notices.lines)
        if (line.find("SELECT tableoid, ctid") != std::string::npos && line.find("Parallel Seq Scan") != std::string::npos)
            saw_parallel_scan = true;
    EXPECT_TRUE(saw_parallel_scan) << "the release's scan did not run in parallel";
    EXPECT_EQ(parallel, serial);
    EXPECT_GT(serial.size(), 100u);  // 74 ages × 2 sexes, most above k
}
