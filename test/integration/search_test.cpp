// The generalization search under cancellation, and its progress reports.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <future>
#include <thread>

#include "../common/notices.hpp"
#include "server.hpp"

namespace {

using privrisk_test::Notices;

// 100,000 census-like rows and a 1,728-node lattice over them.
void make_people(pqxx::connection& c) {
    itest::exec(c, "SELECT setseed(0.25)");
    itest::exec(c, "CREATE TABLE people AS SELECT i AS id, 17 + (random() * 73)::int AS age, "
                   "lpad((10000 + (random() * 89999)::int)::text, 5, '0') AS zip, "
                   "(ARRAY['Male', 'Female'])[1 + (random() * 1)::int] AS sex, "
                   "(ARRAY['White', 'Black', 'Other'])[1 + (random() * 2)::int] AS race, "
                   "(ARRAY['Married', 'Single', 'Divorced'])[1 + (random() * 2)::int] AS marital, "
                   "(ARRAY['HS', 'College', 'Bachelors', 'Masters'])[1 + (random() * 3)::int] AS education "
                   "FROM generate_series(1, 100000) AS i");
    itest::exec(c, "SELECT privrisk.interval_hierarchy('s_age', 0, 160, ARRAY[5, 10, 20, 40])");
    itest::exec(c, "SELECT privrisk.prefix_hierarchy('s_zip', 5)");
    itest::exec(c, "SELECT privrisk.load_hierarchy('s_sex', E'Male;*\\nFemale;*')");
    itest::exec(c, "SELECT privrisk.load_hierarchy('s_race', E'White;*\\nBlack;*\\nOther;*')");
    itest::exec(c, "SELECT privrisk.load_hierarchy('s_marital', E'Married;Married;*\\nSingle;Alone;*\\nDivorced;Alone;*')");
    itest::exec(c, "SELECT privrisk.load_hierarchy('s_education', "
                   "E'HS;School;Any;*\\nCollege;School;Any;*\\nBachelors;Degree;Any;*\\nMasters;Degree;Any;*')");
}

const char* kLattice =
    "SELECT count(*) FROM privrisk.lattice('people', ARRAY['age', 'zip', 'sex', 'race', 'marital', 'education'], "
    "ARRAY['s_age', 's_zip', 's_sex', 's_race', 's_marital', 's_education'], NULL, '{\"k\": 10}')";

// Runs kLattice on c for at most `seconds` (statement_timeout): what the progress tests
// look at shows in the first seconds, and under the sanitizers the whole lattice takes a
// minute. True if it finished, false if the timeout cancelled it.
bool lattice_for(pqxx::connection& c, int seconds) {
    itest::exec(c, "SET statement_timeout = '" + std::to_string(seconds) + "s'");
    bool finished = true;
    try {
        itest::exec(c, kLattice);
    } catch (const pqxx::sql_error& e) {
        if (std::string(e.sqlstate()) != "57014") throw;  // query_canceled
        finished = false;
    }
    itest::exec(c, "RESET statement_timeout");
    return finished;
}

}  // namespace

// A cancel reaches the search within 100 ms wherever it lands (the scan, the roll-ups,
// between nodes), and a cancelled search leaves no memory behind in the backend.
TEST(Search, CancelIsPromptAndLeavesNothingBehind) {
    itest::Database db("privrisk_search_cancel");
    pqxx::connection setup{db.conninfo()};
    make_people(setup);
    pqxx::connection c{db.conninfo()};
    const int pid = itest::backend_pid(c);
    // The whole lattice takes seconds: long enough to cancel at several points.
    auto t0 = std::chrono::steady_clock::now();
    itest::exec(c, kLattice);
    double full_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    ASSERT_GT(full_ms, 1000) << "the lattice must run long enough to be cancelled";
    const long context_before = itest::context_bytes(c);

    std::vector<double> latencies;
    auto cancel_after = [&](int delay_ms) {
        auto running = std::async(std::launch::async, [&] {
            try {
                itest::exec(c, kLattice);
            } catch (const pqxx::sql_error& e) {
                return std::string(e.sqlstate());
            }
            return std::string("finished");
        });
        std::this_thread::sleep_for(std::chrono::milliseconds(delay_ms));
        auto cancelled_at = std::chrono::steady_clock::now();
        c.cancel_query();
        std::string outcome = running.get();
        latencies.push_back(
            std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - cancelled_at).count());
        EXPECT_EQ(outcome, "57014") << "cancelled after " << delay_ms << " ms";  // query_canceled
    };
    // Four rounds of cancels at the same points. The backend's anonymous memory after one cancel
    // depends on where it landed: glibc keeps freed heap it cannot trim, and that swung by up to
    // 19 MB either way from one cancel to the next, with no trend (measured over 226 cancel
    // points, 10 ms to 6 s). A leak raises the floor instead: the least seen in a round. The
    // first round reaches the heap's high-water mark (its floor was 14 MB lower than the next
    // round's); ten cancels between the second round and the last make a leak of 1.6 MB a cancel show.
    std::vector<long> floor_kb;
    for (int round = 0; round < 4; ++round) {
        long least = LONG_MAX;
        for (int delay_ms : {30, 150, 400, 700, 1000}) {
            cancel_after(delay_ms);
            least = std::min(least, itest::rss_kb(pid));
        }
        floor_kb.push_back(least);
    }
    double worst = *std::max_element(latencies.begin(), latencies.end());
    std::printf("[ search   ] full lattice %.0f ms; cancel latencies (ms):", full_ms);
    for (double l : latencies) std::printf(" %.1f", l);
    std::printf("\n");
    EXPECT_LT(worst, 100.0);
    // Nothing left: PostgreSQL's contexts and the C++ heap are back where they were.
    EXPECT_LT(itest::context_bytes(c) - context_before, 256 * 1024);
    std::printf("[ search   ] least anonymous memory after a round of cancels (kB):");
    for (long kb : floor_kb) std::printf(" %ld", kb);
    std::printf("\n");
    EXPECT_LT(floor_kb[3] - floor_kb[1], 16 * 1024);
    pqxx::nontransaction tx{c};
    EXPECT_EQ(tx.exec("SELECT count(*) FROM people")[0][0].as<long>(), 100000);
}

// privrisk.search_progress_interval makes a long search report as it goes.
TEST(Search, ProgressIsReported) {
    itest::Database db("privrisk_search_progress");
    pqxx::connection c{db.conninfo()};
    make_people(c);
    Notices notices(c);
    itest::exec(c, "SET privrisk.search_progress_interval = '50ms'");
    lattice_for(c, 6);  // about 5 s in the normal build: whole or cut, dozens of 50 ms intervals
    int progress = 0;
    for (const auto& l : notices.lines)
        if (l.find("lattice: ") != std::string::npos && l.find(" of 1728 nodes considered (") != std::string::npos &&
            l.find(" s, about ") != std::string::npos)  // lattice() evaluates every node: a plain estimate
            ++progress;
    EXPECT_GE(progress, 3);
    notices.lines.clear();
    itest::exec(c, "SET privrisk.search_progress_interval = 0");
    lattice_for(c, 2);  // 40 intervals of 50 ms
    for (const auto& l : notices.lines) EXPECT_EQ(l.find("lattice: "), std::string::npos) << l;
}

// Another session follows a running lattice in privrisk.progress: done grows, the
// total is the lattice's, the time spent grows; the row is gone once it ends (here by
// a cancel, after eight steps).
TEST(Search, AnotherSessionSeesTheProgressAdvance) {
    itest::Database db("privrisk_search_watch");
    pqxx::connection setup{db.conninfo()};
    make_people(setup);
    pqxx::connection c{db.conninfo()}, watcher{db.conninfo()};
    const int pid = itest::backend_pid(c);
    auto running = std::async(std::launch::async, [&] { itest::exec(c, kLattice); });
    std::vector<std::pair<long, double>> seen;  // (done, elapsed_s)
    std::string operation, unit;
    long total = 0;
    auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
    while (running.wait_for(std::chrono::milliseconds(150)) != std::future_status::ready &&
           std::chrono::steady_clock::now() < deadline) {
        pqxx::nontransaction tx{watcher};
        auto r = tx.exec_params("SELECT operation, done, total, unit, elapsed_s FROM privrisk.progress WHERE pid = $1", pid);
        if (r.empty()) continue;
        operation = r[0][0].as<std::string>();
        total = r[0][2].as<long>();
        unit = r[0][3].as<std::string>();
        long done = r[0][1].as<long>();
        double elapsed = r[0][4].as<double>();
        if (seen.empty() || seen.back() != std::make_pair(done, elapsed)) seen.emplace_back(done, elapsed);
        if (seen.size() >= 8) break;  // enough to see it advance; the rest is a cancel
    }
    c.cancel_query();  // the row must go when the search ends, finished or cancelled
    try {
        running.get();
    } catch (const pqxx::sql_error& e) {
        EXPECT_EQ(std::string(e.sqlstate()), "57014");  // query_canceled
    }
    ASSERT_GE(seen.size(), 3u) << "the watcher saw the lattice's progress fewer than 3 times";
    EXPECT_EQ(operation, "lattice");
    EXPECT_EQ(unit, "nodes considered");
    EXPECT_EQ(total, 1728);
    // elapsed_s has a tenth of a second: done may advance twice within one tenth.
    for (std::size_t i = 1; i < seen.size(); ++i) {
        EXPECT_GE(seen[i].first, seen[i - 1].first);
        EXPECT_GE(seen[i].second, seen[i - 1].second);
    }
    EXPECT_GT(seen.back().first, seen.front().first) << "done did not advance";
    EXPECT_GT(seen.back().second, seen.front().second) << "the time spent did not grow";
    std::printf("[ search   ] the watcher saw %zu steps, done %ld .. %ld of %ld\n", seen.size(), seen.front().first,
                seen.back().first, total);
    pqxx::nontransaction tx{watcher};
    EXPECT_EQ(tx.exec_params("SELECT count(*) FROM privrisk.progress WHERE pid = $1", pid)[0][0].as<long>(), 0)
        << tx.exec_params("SELECT state || ': ' || query FROM pg_stat_activity WHERE pid = $1", pid)[0][0].c_str();
}
