// Versioned install scripts: 0.1 then ALTER EXTENSION UPDATE gives the same
// objects as a fresh install of the default version, and keeps the data.
#include <gtest/gtest.h>

#include "server.hpp"

namespace {

std::string objects(const std::string& conninfo) {
    pqxx::connection c{conninfo};
    pqxx::nontransaction tx{c};
    return tx.exec(
        "SELECT string_agg(pg_describe_object(classid, objid, objsubid), E'\\n' ORDER BY 1) "
        "FROM pg_depend WHERE refclassid = 'pg_extension'::regclass AND deptype = 'e' "
        "AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'privrisk')")[0][0]
        .as<std::string>();
}

}  // namespace

TEST(Upgrade, FromOneVersionToTheNextMatchesAFreshInstall) {
    itest::Database fresh("privrisk_fresh");
    pqxx::connection admin{"dbname=postgres"};
    {
        pqxx::nontransaction tx{admin};
        tx.exec("DROP DATABASE IF EXISTS privrisk_upgrade");
        tx.exec("CREATE DATABASE privrisk_upgrade");
    }
    {
        pqxx::connection c{"dbname=privrisk_upgrade"};
        pqxx::nontransaction tx{c};
        tx.exec("CREATE EXTENSION privrisk VERSION '0.1'");
        tx.exec("SELECT privrisk.load_hierarchy('h', E'a;x;*\\nb;x;*')");
        EXPECT_THROW(tx.exec("SELECT privrisk.k_anonymity(NULL)"), pqxx::sql_error);  // not in 0.1
    }
    {
        pqxx::connection c{"dbname=privrisk_upgrade"};
        pqxx::nontransaction tx{c};
        tx.exec("ALTER EXTENSION privrisk UPDATE");
        EXPECT_EQ(tx.exec("SELECT extversion FROM pg_extension WHERE extname = 'privrisk'")[0][0].as<std::string>(),
                  tx.exec("SELECT default_version FROM pg_available_extensions WHERE name = 'privrisk'")[0][0]
                      .as<std::string>());
        EXPECT_EQ(tx.exec("SELECT privrisk.generalize('h', 'a', 1)")[0][0].as<std::string>(), "x");
        EXPECT_EQ(tx.exec("SELECT privrisk.k_anonymity(h) FROM (SELECT privrisk.hist(v) h FROM "
                          "(VALUES ('a'), ('b'), ('a')) t(v) GROUP BY v) c")[0][0]
                      .as<int>(),
                  1);
    }
    EXPECT_EQ(objects("dbname=privrisk_upgrade"), objects(fresh.conninfo()));
    pqxx::nontransaction tx{admin};
    tx.exec("DROP DATABASE privrisk_upgrade WITH (FORCE)");
}
