// pg_dump keeps the extension's catalogs: after a dump and a restore into a new
// database, the rows are there and the sequences go on after the restored rows
// (0.9 did not register the audit log's sequence: the first record_audit after
// a restore failed with a duplicate key).
#include <gtest/gtest.h>

#include <cstdlib>
#include <memory>

#include "server.hpp"

namespace {

long scalar(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    return tx.exec(sql)[0][0].as<long>();
}

// Runs a shell command; its exit status, with stdout and stderr in `output`.
int shell(const std::string& cmd, std::string& output) {
    output.clear();
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return -1;
    char buf[4096];
    for (size_t n; (n = fread(buf, 1, sizeof buf, p)) > 0;) output.append(buf, n);
    return pclose(p);
}

// Every label of the provider privrisk in a database, "object=label" by object.
std::string privrisk_labels(const std::string& conninfo) {
    pqxx::connection c{conninfo};
    pqxx::nontransaction tx{c};
    return tx.exec("SELECT coalesce(string_agg(objname || '=' || label, ' ' ORDER BY objname), '') "
                   "FROM pg_seclabels WHERE provider = 'privrisk'")[0][0]
        .as<std::string>();
}

// Restores a whole-database pg_dump of `source` into `restored`, whose own
// privrisk the dump replaces (the dump creates the extension and its schema).
void restore_dump(const itest::Database& source, const itest::Database& restored) {
    {
        pqxx::connection c{restored.conninfo()};
        itest::exec(c, "DROP EXTENSION privrisk");
        itest::exec(c, "DROP SCHEMA privrisk");
    }
    std::string bin = itest::pg_bindir();
    ASSERT_FALSE(bin.empty());
    std::string cmd = "'" + bin + "/pg_dump' -d " + source.name() + " | '" + bin + "/psql' -q -v ON_ERROR_STOP=1 -d " +
                      restored.name() + " >/dev/null 2>&1";
    ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
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
    ASSERT_NO_FATAL_FAILURE(restore_dump(source, restored));
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

// A watched release view (docs/watch.md) keeps its watch and its last verdict
// through pg_dump (the watch catalog references the release views': restored
// after them), and is rechecked in the restored database as before.
TEST(DumpRestore, WatchedViewsSurvive) {
    itest::Database source("privrisk_dump_watch_source");
    {
        pqxx::connection c{source.conninfo()};
        itest::exec(c,
                    "SELECT privrisk.create_profile('dump_k2', '{\"k\": 2}'); "
                    "CREATE TABLE visits AS SELECT (i % 5)::text AS zip FROM generate_series(1, 50) i; "
                    "SECURITY LABEL FOR privrisk ON COLUMN visits.zip IS 'quasi_identifier'; "
                    "SELECT privrisk.create_policy('visits', 'visits'); "
                    "SELECT privrisk.add_rule('visits', 'zip', 'hide', 'true'); "
                    "SELECT privrisk.create_release_view('visits', 'visits_release'); "
                    "SELECT privrisk.watch('visits_release', 'dump_k2', fail_closed => true)");
    }
    itest::Database restored("privrisk_dump_watch_restored");
    ASSERT_NO_FATAL_FAILURE(restore_dump(source, restored));
    pqxx::connection c{restored.conninfo()};
    pqxx::nontransaction tx{c};
    EXPECT_EQ(tx.exec("SELECT view::text || ':' || profile || ':' || fail_closed || ':' || passed || ':' || audit_id "
                      "FROM privrisk.watched_view")[0][0].as<std::string>(),
              "visits_release:dump_k2:true:true:1");
    tx.exec("INSERT INTO visits VALUES ('lonely')");
    EXPECT_EQ(tx.exec("CALL privrisk.recheck_watched()")[0][1].as<int>(), 1);  // one failing
    EXPECT_EQ(tx.exec("SELECT summary FROM privrisk.watched_view")[0][0].as<std::string>(),
              "not publishable: k_anonymity = 1 < 2");
}

// A policy's pseudonym key goes through pg_dump (by a superuser: nobody else may
// read it), so a restored release gives the same pseudonyms; without the key row the
// restored release would refuse to read, and with a new key every pseudonym would change.
TEST(DumpRestore, PseudonymsSurvive) {
    itest::Database source("privrisk_dump_pseudonym");
    const std::string pseudonyms = "SELECT md5(string_agg(email, ',' ORDER BY id)) || ' ' || count(DISTINCT email) "
                                   "FROM visits_release";
    std::string before;
    {
        pqxx::connection c{source.conninfo()};
        itest::exec(c,
                    "CREATE TABLE visits AS SELECT i AS id, 'p' || (i % 30) || '@example.org' AS email "
                    "FROM generate_series(1, 90) i; "
                    "SELECT privrisk.create_policy('visits', 'visits'); "
                    "SELECT privrisk.add_rule('visits', 'email', 'pseudonymize'); "
                    "SELECT privrisk.create_release_view('visits', 'visits_release')");
        pqxx::nontransaction tx{c};
        before = tx.exec(pseudonyms)[0][0].as<std::string>();
    }
    EXPECT_EQ(before.substr(33), "30");  // 30 people, 30 pseudonyms
    itest::Database restored("privrisk_dump_pseudonym_restored");
    ASSERT_NO_FATAL_FAILURE(restore_dump(source, restored));
    pqxx::connection c{restored.conninfo()};
    EXPECT_EQ(scalar(c, "SELECT count(*) FROM privrisk.pseudonym_key"), 1);
    pqxx::nontransaction tx{c};
    EXPECT_EQ(tx.exec(pseudonyms)[0][0].as<std::string>(), before);
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
    ASSERT_NO_FATAL_FAILURE(restore_dump(source, restored));
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

// A dump of one schema (pg_dump -n) or one table (-t) holds no CREATE
// EXTENSION: nothing in it calls a privrisk function, so 0.13 restored it in a
// session where the provider was not loaded, and every SECURITY LABEL failed
// ('security label provider "privrisk" is not loaded'); without ON_ERROR_STOP
// the tables came back with no label. An event trigger now loads the library
// before each SECURITY LABEL: every label comes back as it was, in each way of
// restoring, into a database whose sessions have not loaded the library.
namespace {

const char* const kWardLabels =
    "ward.people.id=identifier ward.people.illness=sensitive ward.people.note=insensitive "
    "ward.people.sex=quasi_identifier ward.people.zip=quasi_identifier(zip_h) "
    "ward.visits.clinic=quasi_identifier(clinic_h) ward.visits.reason=sensitive";

// A source database: two labelled tables in schema ward, one in public (its
// session loads the library first, as 0.13 needed).
std::unique_ptr<itest::Database> labelled_source() {
    auto source = std::make_unique<itest::Database>("privrisk_dump_ward");
    pqxx::connection c{source->conninfo()};
    itest::exec(c,
                "LOAD 'privrisk'; CREATE SCHEMA ward; "
                "CREATE TABLE ward.people AS SELECT i AS id, (100 + i % 7)::text AS zip, "
                "CASE WHEN i % 2 = 0 THEN 'F' ELSE 'M' END AS sex, (i % 3)::text AS illness, 'n' AS note "
                "FROM generate_series(1, 60) i; "
                "CREATE TABLE ward.visits (clinic text, reason text, day date); "
                "CREATE TABLE public.elsewhere (x int); "
                "SECURITY LABEL FOR privrisk ON COLUMN ward.people.id IS 'identifier'; "
                "SECURITY LABEL FOR privrisk ON COLUMN ward.people.zip IS 'quasi_identifier(zip_h)'; "
                "SECURITY LABEL FOR privrisk ON COLUMN ward.people.sex IS 'quasi_identifier'; "
                "SECURITY LABEL FOR privrisk ON COLUMN ward.people.illness IS 'sensitive'; "
                "SECURITY LABEL FOR privrisk ON COLUMN ward.people.note IS 'insensitive'; "
                "SECURITY LABEL FOR privrisk ON COLUMN ward.visits.clinic IS 'quasi_identifier(clinic_h)'; "
                "SECURITY LABEL FOR privrisk ON COLUMN ward.visits.reason IS 'sensitive'; "
                "SECURITY LABEL FOR privrisk ON COLUMN public.elsewhere.x IS 'identifier'");
    return source;
}

std::string psql() { return "'" + itest::pg_bindir() + "/psql' -q -v ON_ERROR_STOP=1"; }
std::string pg_restore() { return "'" + itest::pg_bindir() + "/pg_restore' --exit-on-error"; }

// The source dumped with `dump` (pg_dump's arguments) and restored by
// `restore` (a command reading the dump on stdin; -d and the target's name are
// appended) into a fresh database with the extension, set up first by
// `prepare` (SQL). The restore must succeed; returns the target's labels.
std::string restored_labels(const std::string& dump, const std::string& restore, const std::string& prepare = "") {
    static std::unique_ptr<itest::Database> source = labelled_source();
    itest::Database target("privrisk_dump_ward_target");
    if (!prepare.empty()) {
        pqxx::connection c{target.conninfo()};
        itest::exec(c, prepare);
    }
    std::string cmd = "'" + itest::pg_bindir() + "/pg_dump' " + dump + " -d " + source->name() + " | " + restore + " -d " +
                      target.name();
    std::string output;
    EXPECT_EQ(shell(cmd, output), 0) << cmd << "\n" << output;
    return privrisk_labels(target.conninfo());
}

}  // namespace

TEST(DumpRestore, SchemaLevelRestoreKeepsEveryLabel) {
    EXPECT_EQ(restored_labels("-n ward", psql()), kWardLabels);
    EXPECT_EQ(restored_labels("-Fc -n ward", pg_restore()), kWardLabels);
}

TEST(DumpRestore, TableLevelRestoreKeepsEveryLabel) {
    EXPECT_EQ(restored_labels("-t ward.people", psql(), "CREATE SCHEMA ward"),
              "ward.people.id=identifier ward.people.illness=sensitive ward.people.note=insensitive "
              "ward.people.sex=quasi_identifier ward.people.zip=quasi_identifier(zip_h)");
    EXPECT_EQ(restored_labels("-Fc -t ward.visits", pg_restore(), "CREATE SCHEMA ward"),
              "ward.visits.clinic=quasi_identifier(clinic_h) ward.visits.reason=sensitive");
}

// The same with the library in session_preload_libraries (0.13's advice), in
// one transaction, and by a role that is not a superuser (it owns what it
// restores: --no-owner).
TEST(DumpRestore, SchemaLevelRestoreKeepsLabelsInEveryKindOfSession) {
    EXPECT_EQ(restored_labels("-n ward", psql(),
                              "DO $$ BEGIN EXECUTE format('ALTER DATABASE %I SET session_preload_libraries = "
                              "''privrisk''', current_database()); END $$"),
              kWardLabels);
    EXPECT_EQ(restored_labels("-Fc -n ward", pg_restore() + " --single-transaction"), kWardLabels);
    {
        pqxx::connection admin{"dbname=postgres"};
        itest::exec(admin, "DROP ROLE IF EXISTS ward_restorer; CREATE ROLE ward_restorer LOGIN");
    }
    EXPECT_EQ(restored_labels("-Fc -n ward", pg_restore() + " --no-owner -U ward_restorer",
                              "DO $$ BEGIN EXECUTE format('GRANT CREATE ON DATABASE %I TO ward_restorer', "
                              "current_database()); END $$"),
              kWardLabels);
    pqxx::connection admin{"dbname=postgres"};
    itest::exec(admin, "DROP ROLE ward_restorer");
}
