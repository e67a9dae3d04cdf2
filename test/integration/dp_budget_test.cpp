// Differentially private releases against a live server: the budget holds under
// concurrent spenders (also when every spender rolls back), a release whose
// rows reached a client always has a committed ledger row (also when its
// backend is terminated mid-release), and dp_release's own parallel plan
// samples the rows a serial plan samples.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <functional>
#include <numeric>
#include <stdexcept>
#include <random>
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

long ledger_rows_for_seed(pqxx::connection& c, long seed) {
    pqxx::nontransaction tx{c};
    return tx.exec("SELECT count(*) FROM privrisk.budget_ledger WHERE (parameters->>'seed')::int8 = " + std::to_string(seed))[0][0]
        .as<long>();
}

// Polls `query` (one boolean) until it is true or `seconds` have passed.
bool wait_until(pqxx::connection& c, const std::string& query, double seconds = 20) {
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(seconds);
    while (std::chrono::steady_clock::now() < deadline) {
        if (pqxx::nontransaction(c).exec(query)[0][0].as<bool>()) return true;
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
    }
    return false;
}

// A census of 100,000 rows with an age hierarchy and a budget of (1, 0.01).
void budgeted_census(const itest::Database& db) {
    pqxx::connection c{db.conninfo()};
    make_census(c, "census", 100000);
    itest::exec(c, "SELECT privrisk.interval_hierarchy('age_h', 0, 100, ARRAY[5, 10, 20, 100])");
    itest::exec(c, "SELECT privrisk.set_budget('census', 1.0, 1e-2)");
}

// Runs spend(i, connection) in `spenders` connections that start together and
// returns which succeeded; every one that failed must have been refused for
// overspending.
std::vector<int> concurrent_spends(const itest::Database& db, int spenders,
                      const std::function<void(int, pqxx::connection&)>& spend) {
    std::atomic<int> ready{0};
    std::vector<int> succeeded(spenders, 0);
    std::vector<std::string> errors(spenders);
    std::vector<std::thread> threads;
    for (int i = 0; i < spenders; ++i)
        threads.emplace_back([&, i] {
            pqxx::connection c{db.conninfo()};
            ++ready;
            while (ready.load() < spenders) std::this_thread::yield();
            try {
                spend(i, c);
                succeeded[i] = 1;
            } catch (const std::exception& e) {
                errors[i] = e.what();
            }
        });
    for (auto& t : threads) t.join();
    for (int i = 0; i < spenders; ++i)
        if (!succeeded[i]) {
            EXPECT_NE(errors[i].find("would overspend the privacy budget"), std::string::npos) << errors[i];
        }
    return succeeded;
}

// One seeded release in its own connection and a transaction that is rolled
// back: whether the client received rows, and the backend's pid (set before
// the release starts).
struct ReleaseRun {
    std::atomic<int> pid{0};
    std::atomic<bool> got_rows{false};
    std::atomic<bool> done{false};
    std::string error;  // read after the thread was joined

    int wait_for_pid() const {
        while (pid.load() == 0 && !done.load()) std::this_thread::sleep_for(std::chrono::microseconds(200));
        return pid.load();
    }
};

void release_and_roll_back(const std::string& conninfo, long seed, ReleaseRun& run) {
    try {
        pqxx::connection c{conninfo};
        run.pid = itest::backend_pid(c);
        pqxx::work tx{c};
        auto r = tx.exec("SELECT count(*) FROM privrisk.dp_release('census', ARRAY['age', 'sex'], ARRAY['age_h', NULL], 0.1, 1e-4, "
                         "levels => ARRAY[2, 0], seed => " + std::to_string(seed) + ", output => 'classes') "
                         "AS r(age text, sex text, n bigint)");
        if (r[0][0].as<long>() > 0) run.got_rows = true;
        tx.abort();
    } catch (const std::exception& e) {
        run.error = e.what();
    }
    run.done = true;
}

// Joins a release's thread when a failed assertion leaves the scope early:
// its backend is terminated first, as it may wait for a lock the test holds.
struct Joiner {
    std::thread& thread;
    ReleaseRun& run;
    std::string conninfo;
    ~Joiner() {
        if (!thread.joinable()) return;
        try {
            pqxx::connection c{conninfo};
            if (run.pid.load()) pqxx::nontransaction(c).exec("SELECT pg_terminate_backend(" + std::to_string(run.pid.load()) + ")");
        } catch (...) {
        }
        thread.join();
    }
};

}  // namespace

// Eight connections each try to spend epsilon 0.3 of a budget of 1 at the same
// moment, each holding its transaction open a little after releasing. Exactly
// three fit: the ledger sums to 0.9, holds three rows, and exactly the three
// accepted releases' tables exist.
TEST(DpBudget, ConcurrentSpendersNeverOverspend) {
    itest::Database db("privrisk_it_dp_budget");
    budgeted_census(db);
    const int spenders = 8;
    std::vector<int> accepted = concurrent_spends(db, spenders, [](int i, pqxx::connection& c) {
        pqxx::work tx{c};
        tx.exec("CREATE TABLE release_" + std::to_string(i) +
                " AS SELECT * FROM privrisk.dp_release('census', ARRAY['age', 'sex'], ARRAY['age_h', NULL], "
                "0.3, 1e-4, levels => ARRAY[2, 0]) AS r(age text, sex text)");
        tx.exec("SELECT pg_sleep(0.05)");
        tx.commit();
    });
    const int n_accepted = std::accumulate(accepted.begin(), accepted.end(), 0);
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
// what a serial plan releases: the sample depends on the classes' counts only.
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
        if (line.find("SELECT age, sex FROM public.census") != std::string::npos &&
            line.find("Parallel Seq Scan") != std::string::npos)
            saw_parallel_scan = true;
    EXPECT_TRUE(saw_parallel_scan) << "the release's scan did not run in parallel";
    EXPECT_EQ(parallel, serial);
    EXPECT_GT(serial.size(), 100u);  // 74 ages × 2 sexes, most above k
}

// Eight connections each release epsilon 0.2 of a budget of 1 and roll their
// transaction back once the rows are in. The spends commit on their own:
// exactly five releases return rows, the ledger holds five rows and the budget
// is spent to the last of them, though no spender committed anything.
TEST(DpBudget, RolledBackSpendersStillSpendExactlyTheBudget) {
    itest::Database db("privrisk_it_dp_budget_rollback");
    budgeted_census(db);
    const int spenders = 8, room = 5;
    std::vector<int> released = concurrent_spends(db, spenders, [](int, pqxx::connection& c) {
        pqxx::work tx{c};
        auto r = tx.exec("SELECT count(*) FROM privrisk.dp_release('census', ARRAY['age', 'sex'], ARRAY['age_h', NULL], "
                         "0.2, 1e-4, levels => ARRAY[2, 0]) AS r(age text, sex text)");
        if (r[0][0].as<long>() == 0) throw std::runtime_error("a release returned no rows");
        tx.abort();
    });
    const int n_released = std::accumulate(released.begin(), released.end(), 0);
    EXPECT_EQ(n_released, room);
    pqxx::connection c{db.conninfo()};
    pqxx::nontransaction tx{c};
    auto ledger = tx.exec("SELECT count(*), sum(epsilon) FROM privrisk.budget_ledger")[0];
    EXPECT_EQ(ledger[0].as<int>(), room);
    auto budget = tx.exec("SELECT spent_epsilon, epsilon FROM privrisk.budget")[0];
    EXPECT_LE(budget[0].as<double>(), budget[1].as<double>() * (1 + 1e-12));
    EXPECT_NEAR(budget[0].as<double>(), 0.2 * room, 1e-12);
    EXPECT_NEAR(ledger[1].as<double>(), budget[0].as<double>(), 1e-12);
}

// A backend terminated while its release is in progress never leaves rows
// with a client without a committed ledger row. Deterministic cases first,
// each held at one point by a lock the test owns: (a) the budget worker waits
// for the budget row; the caller is terminated, then the lock goes: the worker
// still commits the spend (spent, nothing released: the safe direction).
// (b) The spend is committed and the caller waits to read the source; it is
// terminated: spent, nothing released. Then releases terminated at random
// moments: every one whose client received rows has its ledger row.
TEST(DpBudget, TerminatedReleaseNeverReturnsUnpaidRows) {
    itest::Database db("privrisk_it_dp_budget_terminate");
    pqxx::connection admin{db.conninfo()};
    make_census(admin, "census", 100000);
    itest::exec(admin, "SELECT privrisk.interval_hierarchy('age_h', 0, 100, ARRAY[5, 10, 20, 100])");
    itest::exec(admin, "SELECT privrisk.set_budget('census', 1000, 0.5)");

    {  // (a) held in the budget worker
        pqxx::connection holder{db.conninfo()};
        pqxx::work lock{holder};
        lock.exec("SELECT 1 FROM privrisk.budget WHERE relation = 'census'::regclass FOR UPDATE");
        ReleaseRun run;
        std::thread t([&] { release_and_roll_back(db.conninfo(), 101, run); });
        ASSERT_NE(run.wait_for_pid(), 0);
        Joiner joiner{t, run, db.conninfo()};
        ASSERT_TRUE(wait_until(admin, "SELECT count(*) = 1 FROM pg_stat_activity WHERE backend_type = 'privrisk budget worker' "
                                      "AND wait_event_type = 'Lock'"));
        ASSERT_TRUE(wait_until(admin, "SELECT count(*) = 1 FROM pg_stat_activity WHERE pid = " + std::to_string(run.pid.load()) +
                                      " AND wait_event = 'BgWorkerShutdown'"));
        pqxx::nontransaction(admin).exec("SELECT pg_terminate_backend(" + std::to_string(run.pid.load()) + ")");
        t.join();
        EXPECT_FALSE(run.got_rows);
        EXPECT_FALSE(run.error.empty());
        EXPECT_EQ(ledger_rows_for_seed(admin, 101), 0);  // the worker still waits for the row
        lock.abort();
        EXPECT_TRUE(wait_until(admin, "SELECT count(*) = 1 FROM privrisk.budget_ledger WHERE (parameters->>'seed')::int8 = 101"));
    }
    {  // (b) held before the source is read
        pqxx::connection holder{db.conninfo()};
        pqxx::work lock{holder};
        lock.exec("LOCK TABLE census IN ACCESS EXCLUSIVE MODE");
        ReleaseRun run;
        std::thread t([&] { release_and_roll_back(db.conninfo(), 102, run); });
        ASSERT_NE(run.wait_for_pid(), 0);
        Joiner joiner{t, run, db.conninfo()};
        ASSERT_TRUE(wait_until(admin, "SELECT count(*) = 1 FROM pg_stat_activity WHERE pid = " + std::to_string(run.pid.load()) +
                                      " AND wait_event_type = 'Lock'"));
        EXPECT_EQ(ledger_rows_for_seed(admin, 102), 1);  // committed before a row was read
        pqxx::nontransaction(admin).exec("SELECT pg_terminate_backend(" + std::to_string(run.pid.load()) + ")");
        t.join();
        EXPECT_FALSE(run.got_rows);
        EXPECT_FALSE(run.error.empty());
        lock.abort();
        EXPECT_EQ(ledger_rows_for_seed(admin, 102), 1);
    }
    // Random moments: each release is terminated after 0 to 80 ms.
    const int runs = 32;
    std::mt19937 rng(20261123);
    std::uniform_int_distribution<int> delay_ms(0, 80);
    std::vector<ReleaseRun> results(runs);
    int received = 0, terminated = 0;
    for (int i = 0; i < runs; ++i) {
        ReleaseRun& run = results[i];
        const int delay = delay_ms(rng);
        std::thread t([&, i] { release_and_roll_back(db.conninfo(), 200 + i, run); });
        run.wait_for_pid();
        std::this_thread::sleep_for(std::chrono::milliseconds(delay));
        if (run.pid.load()) pqxx::nontransaction(admin).exec("SELECT pg_terminate_backend(" + std::to_string(run.pid.load()) + ")");
        t.join();
        received += run.got_rows;
        terminated += !run.got_rows;
    }
    // Workers of terminated callers may still be finishing.
    ASSERT_TRUE(wait_until(admin, "SELECT count(*) = 0 FROM pg_stat_activity WHERE backend_type = 'privrisk budget worker'"));
    for (int i = 0; i < runs; ++i)
        if (results[i].got_rows) {
            EXPECT_EQ(ledger_rows_for_seed(admin, 200 + i), 1) << "release " << i << " returned rows unpaid";
        }
    long ledger = pqxx::nontransaction(admin).exec("SELECT count(*) FROM privrisk.budget_ledger WHERE (parameters->>'seed')::int8 >= 200")[0][0].as<long>();
    EXPECT_GE(ledger, received);
    std::printf("[ budget   ] terminated releases: %d of %d returned rows first, %d did not; %ld spends logged\n", received, runs,
                terminated, ledger);
}
