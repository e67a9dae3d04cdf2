// The 0.8 -> 0.9 upgrade converts what 0.8 stored: rule conditions are bound
// (the release is what the rules say, computed independently with SQL),
// catalog rows of temporary or vanished relations are removed, and the audit
// log is closed to direct writes. The 0.9 library does not run 0.8's catalog,
// so the 0.8 rows are written as 0.8's add_rule wrote them.
#include <gtest/gtest.h>

#include "server.hpp"

namespace {

std::string rows_md5(pqxx::connection& c, const std::string& from) {
    pqxx::nontransaction tx{c};
    return tx.exec("SELECT md5(string_agg(format('%s|%s|%s', id, region, secret), ',' ORDER BY id)) FROM " + from)[0][0]
        .as<std::string>();
}

}  // namespace

TEST(Upgrade, From08BindsConditionsAndDropsDanglingRows) {
    pqxx::connection admin{"dbname=postgres"};
    {
        pqxx::nontransaction tx{admin};
        tx.exec("DROP DATABASE IF EXISTS privrisk_upgrade08");
        tx.exec("CREATE DATABASE privrisk_upgrade08");
    }
    const std::string db = "dbname=privrisk_upgrade08";
    std::string before;
    {
        pqxx::connection c{db};
        itest::exec(c, "CREATE EXTENSION privrisk VERSION '0.8'");
        itest::exec(c, "SELECT privrisk.prefix_hierarchy('up_region', 6)");
        itest::exec(c, "CREATE TABLE up_people AS SELECT i AS id, CASE WHEN i % 3 = 0 THEN 'metro' "
                       "ELSE 'rural' || (i % 7) END AS region, 'S-' || i AS secret FROM generate_series(1, 200) i");
        itest::exec(c, "INSERT INTO privrisk.policy(name, source, created_by) VALUES ('up_people', 'up_people', 'postgres')");
        itest::exec(c, "INSERT INTO privrisk.policy_rule(policy, rule, column_name, operator, condition, hierarchy, level) "
                       "VALUES ('up_people', 1, 'region', 'gen', 'region = ''metro''', 'up_region', 2), "
                       "('up_people', 2, 'secret', 'hide', 'id % 2 = 0', NULL, NULL)");
        before = rows_md5(c, "(SELECT id, CASE WHEN region = 'metro' THEN region ELSE privrisk.generalize('up_region', "
                             "region, 2) END AS region, CASE WHEN id % 2 = 0 THEN secret END AS secret FROM up_people) t");
        // 0.8 accepted a temporary source; its row outlives the session.
        itest::exec(c, "CREATE TEMP TABLE up_temp (id int)");
        itest::exec(c, "INSERT INTO privrisk.policy(name, source, created_by) VALUES ('up_temp', 'up_temp', 'postgres')");
    }
    {
        pqxx::connection c{db};
        {
            pqxx::nontransaction tx{c};
            EXPECT_EQ(tx.exec("SELECT count(*) FROM privrisk.policy WHERE name = 'up_temp'")[0][0].as<int>(), 1);
            tx.exec("ALTER EXTENSION privrisk UPDATE TO '0.9'");
            EXPECT_EQ(tx.exec("SELECT count(*) FROM privrisk.policy WHERE name = 'up_temp'")[0][0].as<int>(), 0);
            EXPECT_EQ(tx.exec("SELECT count(*) FROM privrisk.policy_rule WHERE condition_tree IS NULL")[0][0].as<int>(),
                      0);
            EXPECT_EQ(tx.exec("SELECT string_agg(array_to_string(condition_columns, ','), ';' ORDER BY rule) "
                              "FROM privrisk.policy_rule WHERE policy = 'up_people'")[0][0]
                          .as<std::string>(),
                      "region;id");
        }
        EXPECT_EQ(rows_md5(c, "privrisk.release('up_people') AS r(id int, region text, secret text)"), before);
        itest::exec(c, "CREATE ROLE up_stranger");
        pqxx::work tx{c};
        tx.exec("SET LOCAL ROLE up_stranger");
        EXPECT_THROW(tx.exec("INSERT INTO privrisk.audit_log(audited_by, source, settings, result) "
                             "VALUES ('up_stranger', 'x', '{}', '{}')"),
                     pqxx::insufficient_privilege);
    }
    pqxx::nontransaction tx{admin};
    tx.exec("DROP DATABASE privrisk_upgrade08 WITH (FORCE)");
    tx.exec("DROP ROLE up_stranger");
}
