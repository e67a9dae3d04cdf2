// pg_dump keeps the extension's catalogs: after a dump and a restore into a new
// database, the rows are there and the sequences go on after the restored rows
// (0.9 did not register the audit log's sequence: the first record_audit after
// a restore failed with a duplicate key).
#include <gtest/gtest.h>

#include <cstdlib>

#include "server.hpp"

namespace {

std::string pg_bindir() {
    FILE* p = popen("pg_config --bindir", "r");
    char buf[512] = {0};
    std::string dir = p && fgets(buf, sizeof buf, p) ? std::string(buf) : std::string();
    if (p) pclose(p);
    while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) dir.pop_back();
    return dir;
}

long scalar(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    return tx.exec(sql)[0][0].as<long>();
}

}  // namespace

TEST(DumpRestore, CatalogRowsAndSequencesSurvive) {
    itest::Database source("privrisk_dump_source");
    {
        pqxx::connection c{source.conninfo()};
        itest::exec(c,
                    "CREATE TABLE people AS SELECT i AS id, (i % 7)::text AS zip FROM generate_series(1, 50) i; "
                    "CALL privrisk.record_audit('people', ARRAY['zip']); "
                    "CALL privrisk.record_audit('people', ARRAY['zip', 'id']); "
                    "SELECT privrisk.prefix_hierarchy('zip_h', 1), privrisk.set_budget('people', 1, 1e-3)");
        EXPECT_EQ(scalar(c, "SELECT max(id) FROM privrisk.audit_log"), 2);
    }
    itest::Database restored("privrisk_dump_restored");
    {
        pqxx::connection c{restored.conninfo()};
        itest::exec(c, "DROP EXTENSION privrisk");  // the dump creates both
        itest::exec(c, "DROP SCHEMA privrisk");
    }
    std::string bin = pg_bindir();
    ASSERT_FALSE(bin.empty());
    std::string cmd = "'" + bin + "/pg_dump' -d " + source.name() + " | '" + bin + "/psql' -q -v ON_ERROR_STOP=1 -d " +
                      restored.name() + " >/dev/null";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    pqxx::connection c{restored.conninfo()};
    EXPECT_EQ(scalar(c, "SELECT count(*) FROM privrisk.audit_log"), 2);
    EXPECT_EQ(scalar(c, "SELECT count(*) FROM privrisk.hierarchy WHERE name = 'zip_h'"), 1);
    EXPECT_EQ(scalar(c, "SELECT count(*) FROM privrisk.budget"), 1);
    itest::exec(c, "CALL privrisk.record_audit('people', ARRAY['zip'])");  // failed with a duplicate key in 0.9
    EXPECT_EQ(scalar(c, "SELECT max(id) FROM privrisk.audit_log"), 3);
    // Every table and sequence of the extension is registered for pg_dump.
    EXPECT_EQ(scalar(c, "SELECT count(*) FROM pg_class c JOIN pg_depend d ON d.classid = 'pg_class'::regclass "
                        "AND d.objid = c.oid AND d.deptype = 'e' JOIN pg_extension e ON e.oid = d.refobjid "
                        "AND e.extname = 'privrisk' WHERE c.relkind IN ('r', 'S') AND c.oid <> ALL (e.extconfig)"),
              0);
}

// Column labels and users' risk profiles go through pg_dump; the shipped
// profiles are made by CREATE EXTENSION, not restored twice. The restore's
// session loads the library when the dump's CREATE EXTENSION creates its
// functions, so its SECURITY LABEL statements find the provider.
TEST(DumpRestore, LabelsAndProfilesSurvive) {
    itest::Database source("privrisk_dump_labels");
    const std::string audit_sql = "SELECT privrisk.audit('people', levels => ARRAY[1])::text";
    std::string audited;
    {
        pqxx::connection c{source.conninfo()};
        itest::exec(c,
                    "CREATE TABLE people AS SELECT i AS id, (100 + i % 7)::text AS zip, (i % 3)::text AS illness "
                    "FROM generate_series(1, 60) i; "
                    "SELECT privrisk.prefix_hierarchy('zip_h', 3); "
                    "SECURITY LABEL FOR privrisk ON COLUMN people.id IS 'identifier'; "
                    "SECURITY LABEL FOR privrisk ON COLUMN people.zip IS 'quasi_identifier(zip_h)'; "
                    "SECURITY LABEL FOR privrisk ON COLUMN people.illness IS 'sensitive'; "
                    "SELECT privrisk.create_profile('mine', '{\"k\": 3, \"l\": 2}', 'a user''s profile')");
        pqxx::nontransaction tx{c};
        audited = tx.exec(audit_sql)[0][0].as<std::string>();
    }
    itest::Database restored("privrisk_dump_labels_restored");
    {
        pqxx::connection c{restored.conninfo()};
        itest::exec(c, "DROP EXTENSION privrisk");
        itest::exec(c, "DROP SCHEMA privrisk");
    }
    std::string bin = pg_bindir();
    ASSERT_FALSE(bin.empty());
    std::string cmd = "'" + bin + "/pg_dump' -d " + source.name() + " | '" + bin + "/psql' -q -v ON_ERROR_STOP=1 -d " +
                      restored.name() + " >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
    pqxx::connection c{restored.conninfo()};
    pqxx::nontransaction tx{c};
    EXPECT_EQ(tx.exec("SELECT string_agg(column_name || '=' || role || coalesce('(' || hierarchy || ')', ''), ' ') "
                      "FROM privrisk.column_labels('people')")[0][0]
                  .as<std::string>(),
              "id=identifier zip=quasi_identifier(zip_h) illness=sensitive");
    EXPECT_EQ(tx.exec("SELECT string_agg(name || ':' || thresholds::text || ':' || shipped, ' ' ORDER BY name) "
                      "FROM privrisk.risk_profile")[0][0]
                  .as<std::string>(),
              "ck_safe_k10:{\"c\": 0.5, \"k\": 10, \"ck_k\": 3}:true mine:{\"k\": 3, \"l\": 2}:false "
              "public_use_file:{\"k\": 5, \"l\": 2}:true");
    EXPECT_EQ(tx.exec(audit_sql)[0][0].as<std::string>(), audited);  // audit('people') reads the restored labels
    EXPECT_EQ(tx.exec("SELECT passed FROM privrisk.check('people', 'mine', levels => ARRAY[1]) "
                      "WHERE measure = 'k_anonymity'")[0][0]
                  .as<bool>(),
              true);
}
