// Hierarchies across sessions and databases: cache invalidation when another
// session changes a hierarchy, pg_dump round trips, invalid UTF-8 in SQL_ASCII.
#include <gtest/gtest.h>

#include <cstdlib>

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
