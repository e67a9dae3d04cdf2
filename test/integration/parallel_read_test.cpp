// audit() of a table read from its heap by parallel workers (src/pg/classes/parallel_classes.cpp):
// the same report as the serial read, bit for bit, with and without the leader
// scanning, inside a transaction that changed the table, past the memory limit
// (the spilling GROUP BY), and after a cancelled read. Identification reads its
// tables' distinct tuples the same way: the same counts as through SQL.
#include <gtest/gtest.h>

#include <pqxx/pqxx>
#include <string>

#include "../common/notices.hpp"
#include "server.hpp"

namespace {

using privrisk_test::Notices;

// 200,000 rows, about 60,000 classes, keys of four types with NULLs, a sensitive text with NULLs.
void make_people(pqxx::connection& c) {
    itest::exec(c, "SELECT setseed(0.61)");
    itest::exec(c, "CREATE TABLE people AS SELECT i AS id, "
                   "CASE WHEN random() < 0.01 THEN NULL ELSE (17 + random() * 70)::int END AS age, "
                   "CASE WHEN random() < 0.01 THEN NULL ELSE lpad((random() * 300)::int::text, 3, '0') END AS zip, "
                   "(random() < 0.5) AS smoker, "
                   "((ARRAY['a', 'bb', 'ccc'])[1 + (random() * 2)::int])::char(4) AS grade, "
                   "CASE WHEN random() < 0.02 THEN NULL ELSE 'job' || floor(random() * random() * 14)::int END AS occupation "
                   "FROM generate_series(1, 200000) AS i");
    itest::exec(c, "VACUUM ANALYZE people");
}

const char* kAudit =
    "SELECT privrisk.audit('people', ARRAY['age', 'zip', 'smoker', 'grade'], 'occupation')::text";

std::string one(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    return tx.exec(sql)[0][0].as<std::string>();
}

// The scan part of audit()'s DEBUG line ("parallel aggregation, 2 workers", ...).
std::string how_read(const Notices& notices) {
    for (const auto& l : notices.lines) {
        auto at = l.find("audit: ");
        if (at == std::string::npos) continue;
        auto open = l.find(" (", at), comma = l.find(" kB)", at);
        if (open != std::string::npos && comma != std::string::npos) return l.substr(open + 2, comma - open - 2);
    }
    return "";
}

void parallel_settings(pqxx::connection& c, int workers) {
    itest::exec(c, "SET min_parallel_table_scan_size = 0");
    itest::exec(c, "SET max_parallel_workers_per_gather = " + std::to_string(workers));
    itest::exec(c, "SET client_min_messages = debug1");
}

}  // namespace

// A database with the people table, and audit()'s serial report of it.
struct People {
    itest::Database db;
    pqxx::connection c;
    Notices notices;
    std::string serial;
    explicit People(const std::string& name) : db(name), c(db.conninfo()), notices(c) {
        make_people(c);
        parallel_settings(c, 0);
        serial = one(c, kAudit);
    }
};

TEST(ParallelRead, GivesTheSerialReportBitForBit) {
    People p("privrisk_audit_parallel");
    auto& [db, c, notices, serial] = p;
    EXPECT_EQ(how_read(notices).rfind("in-memory aggregation", 0), 0u) << how_read(notices);
    EXPECT_NE(serial.find("\"rows\": 200000"), std::string::npos) << serial;
    for (int workers : {1, 2, 4}) {
        // The table's parallel_workers: that many workers even past one process per CPU.
        itest::exec(c, "ALTER TABLE people SET (parallel_workers = " + std::to_string(workers) + ")");
        for (const char* leader : {"on", "off"}) {
            parallel_settings(c, workers);
            itest::exec(c, std::string("SET parallel_leader_participation = ") + leader);
            notices.lines.clear();
            EXPECT_EQ(one(c, kAudit), serial) << workers << " workers, leader " << leader;
            std::string how = how_read(notices);
            EXPECT_EQ(how.rfind("parallel aggregation, ", 0), 0u) << how;
            EXPECT_NE(how.find("parallel aggregation, 0 workers"), 0u) << "no worker started: " << how;
        }
    }
    itest::exec(c, "ALTER TABLE people RESET (parallel_workers)");
    // A temporary table's pages are in the leader's local buffers: read serially.
    itest::exec(c, "CREATE TEMP TABLE people_here AS SELECT * FROM people");
    parallel_settings(c, 2);
    notices.lines.clear();
    EXPECT_EQ(one(c, "SELECT privrisk.audit('people_here', ARRAY['age', 'zip', 'smoker', 'grade'], 'occupation')::text"),
              serial);
    EXPECT_EQ(how_read(notices).rfind("in-memory aggregation", 0), 0u) << how_read(notices);
    // Without a sensitive column, and with one key: the same as serial too.
    for (const std::string& sql : {std::string("SELECT privrisk.audit('people', ARRAY['zip', 'age'])::text"),
                                   std::string("SELECT privrisk.audit('people', ARRAY['grade'], 'occupation')::text")}) {
        parallel_settings(c, 0);
        const std::string want = one(c, sql);
        parallel_settings(c, 2);
        EXPECT_EQ(one(c, sql), want) << sql;
    }
}

// Workers read under the leader's snapshot: rows the transaction inserted or
// deleted and has not committed count exactly as in the serial read.
TEST(ParallelRead, SeesTheTransactionsOwnChanges) {
    itest::Database db("privrisk_audit_parallel_xact");
    pqxx::connection c{db.conninfo()};
    make_people(c);
    Notices notices(c);
    pqxx::work tx{c};
    tx.exec("INSERT INTO people SELECT id + 200000, age, zip, smoker, grade, 'new' FROM people WHERE id % 3 = 0");
    tx.exec("DELETE FROM people WHERE id % 7 = 0");
    tx.exec("SET LOCAL client_min_messages = debug1");
    tx.exec("SET LOCAL min_parallel_table_scan_size = 0");
    tx.exec("SET LOCAL max_parallel_workers_per_gather = 0");
    const std::string serial = tx.exec(kAudit)[0][0].as<std::string>();
    tx.exec("SET LOCAL max_parallel_workers_per_gather = 2");
    notices.lines.clear();
    EXPECT_EQ(tx.exec(kAudit)[0][0].as<std::string>(), serial);
    EXPECT_EQ(how_read(notices).rfind("parallel aggregation, ", 0), 0u) << how_read(notices);
    const long rows = tx.exec("SELECT count(*) FROM people")[0][0].as<long>();
    EXPECT_NE(serial.find("\"rows\": " + std::to_string(rows) + ","), std::string::npos) << serial;
    tx.abort();
}

// Past privrisk.audit_memory_limit in any participant, audit() groups with a
// spilling GROUP BY instead: a NOTICE, and the same report.
TEST(ParallelRead, FallsBackPastTheMemoryLimit) {
    People p("privrisk_audit_parallel_limit");
    auto& [db, c, notices, serial] = p;
    parallel_settings(c, 2);
    itest::exec(c, "SET privrisk.audit_memory_limit = '1MB'");
    notices.lines.clear();
    EXPECT_EQ(one(c, kAudit), serial);
    EXPECT_EQ(how_read(notices).rfind("spilling GROUP BY", 0), 0u) << how_read(notices);
    bool noticed = false;
    for (const auto& l : notices.lines) noticed |= l.find("grouping with a spilling GROUP BY instead") != std::string::npos;
    EXPECT_TRUE(noticed);
}

// A read cancelled while the workers run leaves nothing behind: the next one works
// and gives the same report.
TEST(ParallelRead, CancelledReadLeavesTheSessionUsable) {
    itest::Database db("privrisk_audit_parallel_cancel");
    pqxx::connection c{db.conninfo()};
    make_people(c);
    parallel_settings(c, 2);
    const std::string want = one(c, kAudit);
    int cancelled = 0;
    for (const char* timeout : {"1ms", "5ms", "20ms", "40ms"}) {
        itest::exec(c, std::string("SET statement_timeout = '") + timeout + "'");
        try {
            one(c, kAudit);
        } catch (const pqxx::sql_error& e) {
            EXPECT_NE(std::string(e.what()).find("canceling statement due to statement timeout"), std::string::npos) << e.what();
            ++cancelled;
        }
        itest::exec(c, "SET statement_timeout = 0");
        EXPECT_EQ(one(c, kAudit), want);
    }
    EXPECT_GE(cancelled, 1);
    // No worker of a cancelled read is left running.
    pqxx::connection other{db.conninfo()};
    EXPECT_EQ(one(other, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'parallel worker'"), "0");
}

// Wide sensitive values are detoasted into the rows' memory, which is reset as it
// grows: 60,000 values of 6,400 bytes (384 MB detoasted) leave the backend's peak
// memory within a few MB of its start, serially and in parallel, with no fallback.
TEST(ParallelRead, WideValuesStayWithinTheRowMemory) {
    itest::Database db("privrisk_audit_parallel_wide");
    pqxx::connection c{db.conninfo()};
    itest::exec(c, "CREATE TABLE w AS SELECT i AS id, i % 50 AS a, repeat(md5((i % 10)::text), 200) AS s "
                   "FROM generate_series(1, 60000) AS i");
    itest::exec(c, "VACUUM ANALYZE w");
    Notices notices(c);
    itest::exec(c, "SET privrisk.audit_memory_limit = '16MB'");
    for (int workers : {0, 2}) {
        parallel_settings(c, workers);
        const int pid = itest::backend_pid(c);
        const long before = privrisk_test::proc_status_kb(pid, "VmHWM");
        notices.lines.clear();
        EXPECT_EQ(one(c, "SELECT privrisk.audit('w', ARRAY['a'], 's')->>'rows'"), "60000");
        const long grown = privrisk_test::proc_status_kb(pid, "VmHWM") - before;
        EXPECT_LT(grown, 64 * 1024) << workers << " workers: peak grew by " << grown << " kB";
        std::string how = how_read(notices);
        EXPECT_EQ(how.rfind(workers ? "parallel aggregation" : "in-memory aggregation", 0), 0u) << how;
    }
}

// match_counts reads both tables' distinct tuples in parallel (keys of int, text,
// char(n), date and boolean, with NULLs, texts made from binary keys in the
// leader): the same counts as the serial SQL tally. (scripts/bench checks the
// counts against GROUP BY and a join on data without NULLs.)
TEST(ParallelRead, IdentificationReadsTuplesInParallel) {
    itest::Database db("privrisk_tuples_parallel");
    pqxx::connection c{db.conninfo()};
    make_people(c);
    itest::exec(c, "ALTER TABLE people ADD COLUMN born date");
    itest::exec(c, "UPDATE people SET born = CASE WHEN id % 97 = 0 THEN NULL ELSE date '1950-01-01' + (id % 300) END");
    itest::exec(c, "CREATE TABLE released AS SELECT * FROM people WHERE id % 4 = 0");
    itest::exec(c, "VACUUM ANALYZE people");
    itest::exec(c, "VACUUM ANALYZE released");
    Notices notices(c);
    const std::string mapping =
        "'[{\"released\": \"age\"}, {\"released\": \"zip\"}, {\"released\": \"grade\"}, "
        "{\"released\": \"born\"}, {\"released\": \"smoker\"}]'";
    const std::string counts = "SELECT count(*) || ' ' || sum(rows) || ' ' || sum(matches) || ' ' || "
                               "md5(string_agg(rows || ':' || matches, ',' ORDER BY rows, matches)) "
                               "FROM privrisk.match_counts('released', 'people', " + mapping + ")";
    parallel_settings(c, 0);
    const std::string serial = one(c, counts);
    bool parallel_read = false;
    for (const auto& l : notices.lines) parallel_read |= l.find("read in parallel") != std::string::npos;
    EXPECT_FALSE(parallel_read);
    parallel_settings(c, 2);
    notices.lines.clear();
    EXPECT_EQ(one(c, counts), serial);
    int reads = 0;
    for (const auto& l : notices.lines)
        if (l.find("read in parallel by ") != std::string::npos && l.find(" 0 workers") == std::string::npos) ++reads;
    EXPECT_EQ(reads, 2) << "the released table and the dictionary";
}

// search() and lattice() read their level-0 classes in parallel (with their keys):
// the same optimum, utility and node results as the serial read, bit for bit.
TEST(ParallelRead, SearchGivesTheSerialResult) {
    itest::Database db("privrisk_search_parallel");
    pqxx::connection c{db.conninfo()};
    make_people(c);
    itest::exec(c, "SELECT privrisk.interval_hierarchy('p_age', 0, 160, ARRAY[5, 10, 20, 40])");
    itest::exec(c, "SELECT privrisk.prefix_hierarchy('p_zip', 3)");
    itest::exec(c, "SELECT privrisk.load_hierarchy('p_grade', E'a;*\\nbb;*\\nccc;*')");
    Notices notices(c);
    const std::vector<std::string> queries = {
        "SELECT (privrisk.search('people', ARRAY['age', 'zip', 'grade'], ARRAY['p_age', 'p_zip', 'p_grade'], 'occupation', "
        "'{\"k\": 5, \"l\": 2}') - 'search')::text",
        "SELECT (privrisk.search('people', ARRAY['age', 'zip', 'grade'], ARRAY['p_age', 'p_zip', 'p_grade'], NULL, "
        "'{\"k\": 10}', 'entropy') - 'search')::text",
        "SELECT md5(string_agg(l::text, ',' ORDER BY l::text)) FROM privrisk.lattice('people', ARRAY['age', 'zip', 'grade'], "
        "ARRAY['p_age', 'p_zip', 'p_grade'], 'occupation', '{\"k\": 5}') AS l"};
    for (const std::string& q : queries) {
        parallel_settings(c, 0);
        const std::string serial = one(c, q);
        parallel_settings(c, 2);
        EXPECT_EQ(one(c, q), serial) << q;
    }
    const std::string workers =
        "SELECT privrisk.search('people', ARRAY['age', 'zip', 'grade'], ARRAY['p_age', 'p_zip', 'p_grade'], 'occupation', "
        "'{\"k\": 5}') -> 'search' ->> 'scan_workers'";
    parallel_settings(c, 0);
    EXPECT_EQ(one(c, workers), "0");
    parallel_settings(c, 2);
    EXPECT_NE(one(c, workers), "0");
    // A numeric sensitive column is keyed by its canonical text in each worker as in the
    // serial read: 1 and 1.0 are two values (as their texts are), with the serial result.
    itest::exec(c, "ALTER TABLE people ADD COLUMN score numeric");
    itest::exec(c, "UPDATE people SET score = CASE WHEN id % 11 = 0 THEN 1.0 ELSE id % 7 END");
    itest::exec(c, "VACUUM ANALYZE people");
    const std::string numeric =
        "SELECT privrisk.search('people', ARRAY['age', 'zip'], ARRAY['p_age', 'p_zip'], 'score', '{\"k\": 5, \"l\": 7}')";
    parallel_settings(c, 0);
    const std::string numeric_serial = one(c, "SELECT (" + numeric + " - 'search')::text");
    EXPECT_NE(numeric_serial.find("\"found\": true"), std::string::npos) << numeric_serial;
    parallel_settings(c, 2);
    EXPECT_EQ(one(c, "SELECT (" + numeric + " - 'search')::text"), numeric_serial);
    EXPECT_NE(one(c, numeric + " -> 'search' ->> 'scan_workers'"), "0");
    // Workers take that text through numeric's output function: one not marked parallel safe
    // (pg_proc is this database's own) keeps the read serial, with the same result.
    itest::exec(c, "ALTER FUNCTION pg_catalog.numeric_out(numeric) PARALLEL UNSAFE");
    EXPECT_EQ(one(c, numeric + " -> 'search' ->> 'scan_workers'"), "0");
    EXPECT_EQ(one(c, "SELECT (" + numeric + " - 'search')::text"), numeric_serial);
    itest::exec(c, "ALTER FUNCTION pg_catalog.numeric_out(numeric) PARALLEL SAFE");
}

// Each process holds its row buffers (16 MB) before its first tuple: under a
// smaller privrisk.memory_limit identification and search read serially, as they
// did, instead of failing. A schema the caller may not use keeps the heap closed:
// through SQL that is an error, so it is one in parallel too.
TEST(ParallelRead, SmallLimitsAndSchemaRightsAsSerially) {
    itest::Database db("privrisk_parallel_limits");
    pqxx::connection c{db.conninfo()};
    itest::exec(c, "CREATE TABLE big2 AS SELECT g % 2000 AS a, g % 7 AS b FROM generate_series(1, 1000000) AS g");
    itest::exec(c, "VACUUM ANALYZE big2");
    Notices notices(c);
    parallel_settings(c, 2);
    itest::exec(c, "SET privrisk.memory_limit = '12MB'");
    const std::string counts = "SELECT count(*) || ' ' || sum(matches) FROM privrisk.match_counts('big2', 'big2', "
                               "'[{\"released\": \"a\"}, {\"released\": \"b\"}]')";
    EXPECT_EQ(one(c, counts), "14000 1000000");  // each distinct tuple once, matched by all its rows
    itest::exec(c, "SELECT privrisk.interval_hierarchy('p_a', 0, 4000, ARRAY[10, 100])");
    EXPECT_EQ(one(c, "SELECT privrisk.search('big2', ARRAY['a'], ARRAY['p_a'], NULL, '{\"k\": 600}') -> 'result' -> 'node'"),
              "[1]");
    itest::exec(c, "RESET privrisk.memory_limit");

    itest::exec(c, "DROP ROLE IF EXISTS privrisk_parallel_alice");
    itest::exec(c, "CREATE ROLE privrisk_parallel_alice");
    itest::exec(c, "CREATE SCHEMA hidden");
    itest::exec(c, "CREATE TABLE hidden.h AS SELECT g % 50 AS a, g % 3 AS b FROM generate_series(1, 100000) AS g");
    itest::exec(c, "ALTER TABLE hidden.h SET (parallel_workers = 2)");
    itest::exec(c, "GRANT SELECT ON hidden.h TO privrisk_parallel_alice");
    const std::string oid = one(c, "SELECT 'hidden.h'::regclass::oid::text");
    itest::exec(c, "SET ROLE privrisk_parallel_alice");
    for (const std::string& q : {"SELECT count(*)::text FROM privrisk.match_counts(" + oid + ", " + oid +
                                     ", '[{\"released\": \"a\"}, {\"released\": \"b\"}]')",
                                 "SELECT privrisk.audit(" + oid + ", ARRAY['a'], NULL)::text"}) {
        try {
            one(c, q);
            ADD_FAILURE() << "read without USAGE on its schema: " << q;
        } catch (const pqxx::sql_error& e) {
            EXPECT_NE(std::string(e.what()).find("permission denied for schema hidden"), std::string::npos) << e.what();
        }
    }
    itest::exec(c, "RESET ROLE");
    itest::exec(c, "DROP TABLE hidden.h");
    itest::exec(c, "DROP ROLE privrisk_parallel_alice");
}
