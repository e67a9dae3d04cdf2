// Hierarchies across sessions and databases: cache invalidation when another
// session changes a hierarchy, pg_dump round trips, invalid UTF-8 in SQL_ASCII.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdlib>
#include <string>
#include <thread>

#include "server.hpp"

namespace {

using itest::exec;

std::string generalize(pqxx::connection& c, const std::string& h, const std::string& v, int level) {
    pqxx::nontransaction tx{c};
    auto r = tx.exec("SELECT privrisk.generalize(" + tx.quote(h) + ", " + tx.quote(v) + ", " + std::to_string(level) + ")");
    return r[0][0].is_null() ? "⊥" : r[0][0].as<std::string>();
}

}  // namespace

TEST(HierarchyCache, AnotherSessionsChangeIsSeen) {
    itest::Database db("privrisk_cache");
    pqxx::connection a{db.conninfo()}, b{db.conninfo()};
    exec(a, "SELECT privrisk.load_hierarchy('h', E'v;x;*\\nw;x;*')");
    EXPECT_EQ(generalize(b, "h", "v", 1), "x");  // b caches it
    exec(a, "SELECT privrisk.drop_hierarchy('h')");
    exec(a, "SELECT privrisk.load_hierarchy('h', E'v;y;*\\nw;z;*')");
    EXPECT_EQ(generalize(b, "h", "v", 1), "y");
    // A hand edit of the catalog table is seen too.
    exec(a, "UPDATE privrisk.hierarchy_leaf SET path[2] = 'q' WHERE hierarchy = 'h'");
    EXPECT_EQ(generalize(b, "h", "w", 1), "q");
    // A drop makes the hierarchy unknown everywhere.
    exec(a, "SELECT privrisk.drop_hierarchy('h')");
    EXPECT_THROW(generalize(b, "h", "v", 1), pqxx::sql_error);
}

TEST(HierarchyCache, RolledBackLoadIsForgotten) {
    itest::Database db("privrisk_cache_tx");
    pqxx::connection a{db.conninfo()};
    {
        pqxx::work tx{a};
        tx.exec("SELECT privrisk.load_hierarchy('t', 'v;x;*')");
        EXPECT_EQ(tx.exec("SELECT privrisk.generalize('t', 'v', 1)")[0][0].as<std::string>(), "x");
        tx.abort();
    }
    EXPECT_THROW(generalize(a, "t", "v", 1), pqxx::sql_error);
    exec(a, "SELECT privrisk.load_hierarchy('t', 'v;y;*')");
    EXPECT_EQ(generalize(a, "t", "v", 1), "y");
}

TEST(HierarchyCatalog, PgDumpRoundTrip) {
    itest::Database src("privrisk_dump_src");
    {
        pqxx::connection c{src.conninfo()};
        exec(c, "SELECT privrisk.load_hierarchy('m', E'Divorced;alone;*\\nMarried;together;*')");
        exec(c, "SELECT privrisk.interval_hierarchy('age', 0, 100, '{5,10}')");
        exec(c, "SELECT privrisk.prefix_hierarchy('zip', 5)");
        exec(c, "SELECT privrisk.date_hierarchy('birth')");
    }
    pqxx::connection admin{"dbname=postgres"};
    exec(admin, "DROP DATABASE IF EXISTS privrisk_dump_dst");
    exec(admin, "CREATE DATABASE privrisk_dump_dst");
    std::string cmd = "pg_dump -d privrisk_dump_src | psql -q -v ON_ERROR_STOP=1 -d privrisk_dump_dst >/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    {
        pqxx::connection d{"dbname=privrisk_dump_dst"};
        EXPECT_EQ(generalize(d, "m", "Divorced", 1), "alone");
        EXPECT_EQ(generalize(d, "age", "39", 2), "[30, 40)");
        EXPECT_EQ(generalize(d, "zip", "47677", 2), "476**");
        EXPECT_EQ(generalize(d, "birth", "1975-05-10", 1), "1975-05");
        pqxx::nontransaction tx{d};
        EXPECT_EQ(tx.exec("SELECT count(*) FROM privrisk.hierarchy")[0][0].as<int>(), 4);
    }
    exec(admin, "DROP DATABASE privrisk_dump_dst WITH (FORCE)");
}

// In a UTF8 database PostgreSQL itself rejects invalid bytes; in SQL_ASCII they
// reach the loader, which must name the line and store nothing.
TEST(HierarchyCatalog, InvalidUtf8IsRejectedWithItsLine) {
    itest::Database db("privrisk_ascii", "ENCODING 'SQL_ASCII' LC_COLLATE 'C' LC_CTYPE 'C' TEMPLATE template0");
    pqxx::connection c{db.conninfo()};
    try {
        exec(c, "SELECT privrisk.load_hierarchy('bad', E'a;*\\nb;*\\n\\xff;*')");
        FAIL() << "no error";
    } catch (const pqxx::sql_error& e) {
        EXPECT_NE(std::string(e.what()).find("line 3: invalid UTF-8"), std::string::npos) << e.what();
    }
    pqxx::nontransaction tx{c};
    EXPECT_EQ(tx.exec("SELECT count(*) FROM privrisk.hierarchy")[0][0].as<int>(), 0);
}

// A full reset of a backend's caches (here: another session's publication FOR ALL
// TABLES, which invalidates every relation) says nothing of what changed: reads
// that use hierarchies go on when the hierarchies they pinned are unchanged.
TEST(HierarchyCache, ResetsDuringAReadAreNotChanges) {
    itest::Database db("privrisk_cache_reset");
    pqxx::connection a{db.conninfo()}, b{db.conninfo()};
    exec(a, "SELECT setseed(0.5)");
    exec(a, "CREATE TABLE people AS SELECT 17 + (random() * 73)::int AS age, "
            "lpad((10000 + (random() * 899)::int)::text, 5, '0') AS zip FROM generate_series(1, 60000)");
    exec(a, "CREATE TABLE dictionary AS SELECT age::text AS age, zip FROM people LIMIT 20000");
    exec(a, "SELECT privrisk.interval_hierarchy('r_age', 0, 160, ARRAY[5, 10, 20, 40])");
    exec(a, "SELECT privrisk.prefix_hierarchy('r_zip', 5)");
    std::atomic<bool> stop{false};
    std::atomic<int> resets{0};
    std::thread flood([&] {
        while (!stop) {
            exec(b, "CREATE PUBLICATION privrisk_reset FOR ALL TABLES");
            exec(b, "DROP PUBLICATION privrisk_reset");
            ++resets;
        }
    });
    int reads = 0;
    std::string error;
    const std::string mapping =
        "'[{\"released\": \"age\", \"hierarchy\": \"r_age\"}, {\"released\": \"zip\", \"hierarchy\": \"r_zip\"}]'";
    try {
        for (; reads < 12; ++reads) {
            exec(a, reads % 2 ? "SELECT count(*) FROM privrisk.match_counts('people', 'dictionary', " + mapping + ")"
                              : "SELECT count(*) FROM privrisk.lattice('people', ARRAY['age', 'zip'], "
                                "ARRAY['r_age', 'r_zip'], NULL, '{\"k\": 5}')");
        }
    } catch (const std::exception& e) {
        error = e.what();
    }
    stop = true;
    flood.join();
    EXPECT_EQ(error, "") << "after " << reads << " reads";
    EXPECT_GT(resets.load(), 12) << "the other session reset the caches during the reads";
}
