// An updated database holds the same extension as a fresh install: for each
// released version a user may come from, install it (with catalog data),
// ALTER EXTENSION UPDATE, and compare every member object's full definition
// (test/upgrade/describe_extension.sql) with a fresh CREATE EXTENSION, which
// runs the one install script built from src/sql. The two paths share no
// script, so any object the delta or the fragments get wrong shows up here.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "../common/read_file.hpp"
#include "server.hpp"

namespace {

using Description = std::map<std::string, std::string>;  // object -> definition

Description describe(pqxx::connection& c) {
    static const std::string sql =
        privrisk_test::read_file(std::string(PRIVRISK_SOURCE_DIR) + "/test/upgrade/describe_extension.sql");
    pqxx::nontransaction tx{c};
    Description d;
    for (const auto& row : tx.exec(sql)) {
        std::string object = row[0].as<std::string>();
        EXPECT_EQ(d.count(object), 0u) << "described twice: " << object;
        d[object] = row[1].is_null() ? "" : row[1].as<std::string>();
    }
    return d;
}

// Every object that is missing on one side or defined differently, one per line.
std::string differences(const Description& updated, const Description& fresh) {
    std::string out;
    for (const auto& [object, definition] : fresh) {
        auto it = updated.find(object);
        if (it == updated.end())
            out += "only in the fresh install: " + object + "\n";
        else if (it->second != definition)
            out += "differs: " + object + "\n  updated: " + it->second + "\n  fresh:   " + definition + "\n";
    }
    for (const auto& [object, definition] : updated)
        if (!fresh.count(object)) out += "only in the updated database: " + object + "\n";
    return out;
}

// Catalog rows every released version can hold; written through the version's own API.
void add_catalog_data(pqxx::connection& c, const std::string& from) {
    itest::exec(c, "SELECT privrisk.load_hierarchy('up_h', E'a;x;*\\nb;x;*')");
    if (from == "0.1") return;
    itest::exec(c, "CREATE TABLE up_src AS SELECT i AS id, CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS v "
                   "FROM generate_series(1, 20) i");
    itest::exec(c, "SELECT privrisk.set_budget('up_src', 2, 1e-3)");
    if (from == "0.8") {  // today's library does not run 0.8's catalog code: the rows as 0.8's add_rule wrote them
        itest::exec(c, "INSERT INTO privrisk.policy(name, source, created_by) VALUES ('up_p', 'up_src', 'postgres')");
        itest::exec(c, "INSERT INTO privrisk.policy_rule(policy, rule, column_name, operator, condition, hierarchy, "
                       "level) VALUES ('up_p', 1, 'v', 'gen', 'id > 10', 'up_h', 1)");
        return;
    }
    itest::exec(c, "SELECT privrisk.create_policy('up_p', 'up_src')");
    itest::exec(c, "SELECT privrisk.add_rule('up_p', 'v', 'gen', 'id > 10', 'up_h', 1)");
    itest::exec(c, "CALL privrisk.record_audit('up_src', ARRAY['v'])");
}

void check_update_from(const std::string& from) {
    itest::Database fresh("privrisk_fresh");
    std::string digits = from;
    digits.erase(std::remove(digits.begin(), digits.end(), '.'), digits.end());
    itest::Database updated("privrisk_updated_" + digits,
                            "", "VERSION '" + from + "'");
    pqxx::connection u{updated.conninfo()};
    add_catalog_data(u, from);
    itest::exec(u, "ALTER EXTENSION privrisk UPDATE");
    pqxx::connection f{fresh.conninfo()};
    {
        pqxx::nontransaction tx{u};
        EXPECT_EQ(tx.exec("SELECT extversion FROM pg_extension WHERE extname = 'privrisk'")[0][0].as<std::string>(),
                  tx.exec("SELECT default_version FROM pg_available_extensions WHERE name = 'privrisk'")[0][0]
                      .as<std::string>());
        EXPECT_EQ(tx.exec("SELECT privrisk.generalize('up_h', 'a', 1)")[0][0].as<std::string>(), "x");
        if (from != "0.1") {  // the policy went through: where the condition fails, the value is generalized
            EXPECT_EQ(tx.exec("SELECT string_agg(DISTINCT v, ',' ORDER BY v) FROM privrisk.release('up_p') AS "
                              "r(id int, v text) WHERE id <= 10")[0][0]
                          .as<std::string>(),
                      "x");
        }
    }
    if (from != "0.1") {  // under data: the updated database works as a fresh one given the same data
        // Labels set on the old database (the new library provides them), kept through the update.
        const char* labels = "SECURITY LABEL FOR privrisk ON COLUMN up_src.id IS 'identifier'; "
                             "SECURITY LABEL FOR privrisk ON COLUMN up_src.v IS 'quasi_identifier(up_h)'";
        itest::exec(f, "SELECT privrisk.load_hierarchy('up_h', E'a;x;*\\nb;x;*')");
        itest::exec(f, "CREATE TABLE up_src AS SELECT i AS id, CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS v "
                       "FROM generate_series(1, 20) i");
        itest::exec(f, "SELECT privrisk.set_budget('up_src', 2, 1e-3)");
        itest::exec(f, "SELECT privrisk.create_policy('up_p', 'up_src')");
        itest::exec(f, "SELECT privrisk.add_rule('up_p', 'v', 'gen', 'id > 10', 'up_h', 1)");
        itest::exec(f, labels);
        itest::exec(u, labels);
        const std::string same[] = {
            "SELECT count(*) FROM privrisk.check_catalog()",
            "SELECT privrisk.audit('up_src', levels => ARRAY[1])::text",
            "SELECT string_agg(coalesce(id::text, '-') || ':' || v, ',' ORDER BY v, id) "
            "FROM privrisk.release('up_p') AS r(id int, v text)",  // the identifier hidden by default too
            "SELECT string_agg(epsilon || '/' || spent_epsilon, ',') FROM privrisk.budget",
            "SELECT string_agg(measure || '=' || value || ':' || passed, ',') FROM privrisk.check('up_src', "
            "'public_use_file', levels => ARRAY[1])",
        };
        for (const std::string& sql : same) {
            pqxx::nontransaction tu{u};
            std::string got = tu.exec(sql)[0][0].is_null() ? "NULL" : tu.exec(sql)[0][0].as<std::string>();
            tu.commit();
            pqxx::nontransaction tf{f};
            std::string want = tf.exec(sql)[0][0].is_null() ? "NULL" : tf.exec(sql)[0][0].as<std::string>();
            EXPECT_EQ(got, want) << "updated from " << from << ": " << sql;
        }
    }
    Description a = describe(u), b = describe(f);
    EXPECT_GT(b.size(), 190u);  // every function, aggregate, table, view, type and trigger of the extension
    EXPECT_EQ(differences(a, b), "") << "updating from " << from << " does not give the fresh install's objects";
}

}  // namespace

TEST(Upgrade, From08GivesTheFreshInstall) { check_update_from("0.8"); }
TEST(Upgrade, From09GivesTheFreshInstall) { check_update_from("0.9"); }
TEST(Upgrade, From010GivesTheFreshInstall) { check_update_from("0.10"); }
TEST(Upgrade, From011GivesTheFreshInstall) { check_update_from("0.11"); }
TEST(Upgrade, From012GivesTheFreshInstall) { check_update_from("0.12"); }
TEST(Upgrade, From013GivesTheFreshInstall) { check_update_from("0.13"); }
TEST(Upgrade, From014GivesTheFreshInstall) { check_update_from("0.14"); }
TEST(Upgrade, From01AlongTheReleasedChainGivesTheFreshInstall) { check_update_from("0.1"); }
