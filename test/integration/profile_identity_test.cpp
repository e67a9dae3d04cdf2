// A risk profile's owner through pg_dump and a restore (docs/profiles.md): the
// owner is dumped by name and comes back as that role; a profile whose owner
// role was dropped stays orphaned, even where a role of the old name exists
// again (0.13 kept the owner's name, so the new role took the profile over).
#include <gtest/gtest.h>

#include <cstdlib>

#include "server.hpp"

namespace {

std::string text(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    auto r = tx.exec(sql);
    return r[0][0].is_null() ? "NULL" : r[0][0].as<std::string>();
}

void roles(const std::string& sql) {
    pqxx::connection admin{"dbname=postgres"};
    itest::exec(admin, sql);
}

}  // namespace

TEST(ProfileOwner, SurvivesDumpAndStaysOrphaned) {
    roles("DROP ROLE IF EXISTS po_keeper; DROP ROLE IF EXISTS po_leaver; CREATE ROLE po_keeper; CREATE ROLE po_leaver");
    {
        itest::Database source("privrisk_profile_owner_source");
        {
            pqxx::connection c{source.conninfo()};
            itest::exec(c,
                        "CREATE TABLE po_t AS SELECT i, (i % 2)::text AS z FROM generate_series(1, 10) AS i; "
                        "GRANT EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean), "
                        "privrisk.drop_profile(text) TO po_keeper, po_leaver; "
                        "SET ROLE po_keeper; SELECT privrisk.create_profile('kept', '{\"k\": 3}'); RESET ROLE; "
                        "SET ROLE po_leaver; SELECT privrisk.create_profile('left', '{\"k\": 4}'); RESET ROLE; "
                        "REVOKE EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean), "
                        "privrisk.drop_profile(text) FROM po_leaver");
        }
        // The owner of 'left' is dropped, and a role of the same name is made again.
        roles("DROP ROLE po_leaver; CREATE ROLE po_leaver");
        itest::Database restored("privrisk_profile_owner_restored");
        {
            pqxx::connection c{restored.conninfo()};
            itest::exec(c, "DROP EXTENSION privrisk; DROP SCHEMA privrisk");
        }
        std::string bin = itest::pg_bindir();
        ASSERT_FALSE(bin.empty());
        std::string cmd = "'" + bin + "/pg_dump' -d " + source.name() + " | '" + bin +
                          "/psql' -q -v ON_ERROR_STOP=1 -d " + restored.name() + " >/dev/null 2>&1";
        ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
        for (const auto& db : {source.conninfo(), restored.conninfo()}) {
            pqxx::connection c{db};
            EXPECT_EQ(text(c, "SELECT owner::text FROM privrisk.risk_profile WHERE name = 'kept'"), "po_keeper") << db;
            EXPECT_EQ(text(c, "SELECT r->'verdict'->>'profile_orphaned' || ' ' || (r->'verdict'->>'profile_owner_was') "
                              "FROM privrisk.audit('po_t', ARRAY['z'], profile => 'left') AS r"),
                      "true po_leaver")
                << db;
            // The new po_leaver is not the owner: it can neither replace nor drop the profile.
            itest::exec(c, "GRANT EXECUTE ON FUNCTION privrisk.drop_profile(text) TO po_leaver");
            pqxx::nontransaction tx{c};
            tx.exec("SET ROLE po_leaver");
            EXPECT_THROW(tx.exec("SELECT privrisk.drop_profile('left')"), pqxx::insufficient_privilege) << db;
            tx.exec("RESET ROLE");
            EXPECT_EQ(tx.exec("SELECT count(*) FROM privrisk.risk_profile WHERE name = 'left'")[0][0].as<int>(), 1);
            tx.exec("REVOKE EXECUTE ON FUNCTION privrisk.drop_profile(text) FROM po_leaver");
        }
        for (const auto& db : {source.conninfo(), restored.conninfo()}) {
            pqxx::connection c{db};
            itest::exec(c, "REVOKE EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean), "
                           "privrisk.drop_profile(text) FROM po_keeper; DELETE FROM privrisk.risk_profile WHERE NOT shipped");
        }
    }
    roles("DROP ROLE po_keeper; DROP ROLE po_leaver");
}

// Updating from 0.13: owners become identities (the role of that name now), and names that differ
// only by case, which 0.13 accepted, stop the update with an error naming them.
TEST(ProfileOwner, UpdateFrom013) {
    roles("DROP ROLE IF EXISTS po_upgrader; CREATE ROLE po_upgrader");
    {
        itest::Database db("privrisk_profile_owner_update", "", "VERSION '0.13'");
        pqxx::connection c{db.conninfo()};
        itest::exec(c,
                    "GRANT EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean) TO po_upgrader; "
                    "SET ROLE po_upgrader; SELECT privrisk.create_profile('Clinic', '{\"k\": 3}'); RESET ROLE; "
                    // 0.13's create_profile took it; this library refuses it even on a 0.13 catalog
                    "INSERT INTO privrisk.risk_profile(name, thresholds, owner) VALUES ('clinic', '{\"k\": 1}', "
                    "'po_upgrader')");
        {
            pqxx::nontransaction tx{c};
            try {
                tx.exec("ALTER EXTENSION privrisk UPDATE TO '0.14'");
                ADD_FAILURE() << "the update went through with 'Clinic' and 'clinic'";
            } catch (const pqxx::sql_error& e) {
                EXPECT_NE(std::string(e.what()).find("risk profiles 'Clinic' and 'clinic' differ only by case"),
                          std::string::npos)
                    << e.what();
            }
        }
        itest::exec(c, "DELETE FROM privrisk.risk_profile WHERE name = 'clinic'");
        itest::exec(c, "ALTER EXTENSION privrisk UPDATE TO '0.14'");
        EXPECT_EQ(text(c, "SELECT owner::text || ' ' || owner_name FROM privrisk.risk_profile WHERE name = 'Clinic'"),
                  "po_upgrader po_upgrader");
        EXPECT_EQ(text(c, "SELECT extversion FROM pg_extension WHERE extname = 'privrisk'"), "0.14");
        itest::exec(c, "DELETE FROM privrisk.risk_profile WHERE NOT shipped; REVOKE EXECUTE ON FUNCTION "
                       "privrisk.create_profile(text, jsonb, text, boolean) FROM po_upgrader");
    }
    roles("DROP ROLE po_upgrader");
}
