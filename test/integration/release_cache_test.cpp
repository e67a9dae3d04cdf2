// The release's catalog cache (docs/release.md, "Catalog cache"): an analyst's
// session that cached a policy sees every change by the next query — made in
// another session, in its own transaction, rolled back, a grant revoked, a role
// set, a watched view closed, a hierarchy replaced.
#include <gtest/gtest.h>

#include <string>

#include "server.hpp"

namespace {

using itest::exec;

std::string one(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    auto r = tx.exec(sql);
    return r[0][0].is_null() ? "NULL" : r[0][0].as<std::string>();
}

std::string one(pqxx::transaction_base& tx, const std::string& sql) {
    auto r = tx.exec(sql);
    return r[0][0].is_null() ? "NULL" : r[0][0].as<std::string>();
}

// The error a statement raises, or "" when it succeeds.
std::string error_of(pqxx::connection& c, const std::string& sql) {
    try {
        exec(c, sql);
    } catch (const pqxx::sql_error& e) {
        return e.what();
    }
    return "";
}

struct Roles {
    Roles() {
        pqxx::connection c{"dbname=postgres"};
        for (const char* r : {"privrisk_cache_steward", "privrisk_cache_analyst"}) {
            exec(c, std::string("DROP ROLE IF EXISTS ") + r);
            exec(c, std::string("CREATE ROLE ") + r + " LOGIN");
        }
    }
    ~Roles() {
        try {
            pqxx::connection c{"dbname=postgres"};
            exec(c, "DROP ROLE IF EXISTS privrisk_cache_steward, privrisk_cache_analyst");
        } catch (...) {
        }
    }
};

// patients(id, diagnosis, zip, age): diagnosis released as it is (rule 1 discloses
// it in every row), zip hidden (rule 2), age generalized (rule 3); the view for the analyst.
struct Published {
    Roles roles;
    itest::Database db;
    explicit Published(const std::string& name) : db(name) {
        pqxx::connection admin{db.conninfo()};
        exec(admin, "GRANT CREATE ON SCHEMA public TO privrisk_cache_steward");
        // Another role's hierarchy: its replacement waits for the policy's owner to approve it.
        exec(admin, "SELECT privrisk.interval_hierarchy('cache_age', 0, 120, ARRAY[10, 40])");
        pqxx::connection s{db.conninfo() + " user=privrisk_cache_steward"};
        exec(s, "CREATE TABLE patients AS SELECT i AS id, 'flu-' || i AS diagnosis, 'zip-' || i AS zip, 40 + i AS age "
                "FROM generate_series(1, 30) AS i");
        exec(s, "SELECT privrisk.create_policy('p', 'patients')");
        exec(s, "SELECT privrisk.add_rule('p', 'diagnosis', 'hide', 'true')");
        exec(s, "SELECT privrisk.add_rule('p', 'zip', 'hide', 'false')");
        exec(s, "SELECT privrisk.add_rule('p', 'age', 'gen', 'false', 'cache_age', 1)");
        exec(s, "SELECT privrisk.create_release_view('p', 'patients_release')");
        exec(s, "GRANT SELECT ON patients_release TO privrisk_cache_analyst");
    }
    std::string steward() const { return db.conninfo() + " user=privrisk_cache_steward"; }
    std::string analyst() const { return db.conninfo() + " user=privrisk_cache_analyst"; }
};

const char* kDiagnosis = "SELECT diagnosis FROM patients_release WHERE id = 1";

// Reads twice: the second read is served from the cache.
void warm(pqxx::connection& c, const std::string& sql, const std::string& expected) {
    ASSERT_EQ(one(c, sql), expected);
    ASSERT_EQ(one(c, sql), expected);
}

}  // namespace

TEST(ReleaseCache, RuleChangedDroppedAddedInAnotherSession) {
    Published p("privrisk_cache_rules");
    pqxx::connection admin{p.db.conninfo()};
    pqxx::connection steward{p.steward()};
    pqxx::connection analyst{p.analyst()};
    warm(analyst, kDiagnosis, "flu-1");
    // Changed (by hand, as the catalog's owner): rule 1 now has rule 2's condition, false.
    exec(admin, "UPDATE privrisk.policy_rule SET condition = 'false', condition_columns = '{}', condition_tree = "
                "(SELECT condition_tree FROM privrisk.policy_rule WHERE rule = 2) WHERE rule = 1");
    EXPECT_EQ(one(analyst, kDiagnosis), "NULL");
    // Dropped: the column is released as it is again.
    exec(admin, "DELETE FROM privrisk.policy_rule WHERE rule = 1");
    EXPECT_EQ(one(analyst, kDiagnosis), "flu-1");
    // Added by its owner.
    exec(steward, "SELECT privrisk.add_rule('p', 'diagnosis', 'hide', 'id > 1')");
    EXPECT_EQ(one(analyst, kDiagnosis), "NULL");
    EXPECT_EQ(one(analyst, "SELECT diagnosis FROM patients_release WHERE id = 2"), "flu-2");
    // A suppression rule set (another table): the lone classes of zip-… go.
    warm(analyst, "SELECT count(*) FROM patients_release", "30");
    exec(steward, "SELECT privrisk.set_suppression('p', ARRAY['diagnosis'], '{\"k\": 2, \"max_suppression\": 1}')");
    EXPECT_EQ(one(analyst, "SELECT count(*) FROM patients_release"), "0");  // every class is one row
    exec(steward, "SELECT privrisk.set_suppression('p', ARRAY['diagnosis'], NULL)");
    EXPECT_EQ(one(analyst, "SELECT count(*) FROM patients_release"), "30");
}

// A logical replica applies changes with session_replication_role = replica,
// as does a restore with its triggers disabled: the catalog's triggers still fire.
TEST(ReleaseCache, ChangeAppliedAsAReplicaFlushesToo) {
    Published p("privrisk_cache_replica");
    pqxx::connection admin{p.db.conninfo()};
    pqxx::connection analyst{p.analyst()};
    warm(analyst, kDiagnosis, "flu-1");
    exec(admin, "SET session_replication_role = replica");
    exec(admin, "UPDATE privrisk.policy_rule SET condition = 'false', condition_columns = '{}', condition_tree = "
                "(SELECT condition_tree FROM privrisk.policy_rule WHERE rule = 2) WHERE rule = 1");
    EXPECT_EQ(one(analyst, kDiagnosis), "NULL");
}

TEST(ReleaseCache, OwnTransactionSeesItsChangeAndForgetsItsRollback) {
    Published p("privrisk_cache_transaction");
    pqxx::connection steward{p.steward()};
    warm(steward, kDiagnosis, "flu-1");
    {
        pqxx::work tx{steward};
        EXPECT_EQ(one(tx, kDiagnosis), "flu-1");
        tx.exec("SELECT privrisk.add_rule('p', 'diagnosis', 'hide', 'false')");
        EXPECT_EQ(one(tx, kDiagnosis), "NULL");  // the next statement of the same transaction
        EXPECT_EQ(one(tx, kDiagnosis), "NULL");
        tx.abort();
    }
    EXPECT_EQ(one(steward, kDiagnosis), "flu-1");  // rolled back: forgotten
    EXPECT_EQ(one(steward, kDiagnosis), "flu-1");
    {
        pqxx::work tx{steward};
        tx.exec("SAVEPOINT s");
        tx.exec("SELECT privrisk.add_rule('p', 'diagnosis', 'hide', 'false')");
        EXPECT_EQ(one(tx, kDiagnosis), "NULL");
        tx.exec("ROLLBACK TO SAVEPOINT s");
        EXPECT_EQ(one(tx, kDiagnosis), "flu-1");
        tx.commit();
    }
    EXPECT_EQ(one(steward, kDiagnosis), "flu-1");
}

// A repeatable-read transaction reads the policy of its snapshot; what it read
// then is not kept for the transactions after it.
TEST(ReleaseCache, SnapshotOlderThanAChangeIsNotKept) {
    Published p("privrisk_cache_snapshot");
    pqxx::connection steward{p.steward()};
    pqxx::connection analyst{p.analyst()};
    warm(analyst, kDiagnosis, "flu-1");
    {
        pqxx::transaction<pqxx::isolation_level::repeatable_read> tx{analyst};
        EXPECT_EQ(one(tx, kDiagnosis), "flu-1");
        exec(steward, "SELECT privrisk.add_rule('p', 'diagnosis', 'hide', 'false')");
        EXPECT_EQ(one(tx, kDiagnosis), "flu-1");  // its snapshot's policy, as without a cache
        tx.commit();
    }
    EXPECT_EQ(one(analyst, kDiagnosis), "NULL");
}

TEST(ReleaseCache, GrantRevokeAndSetRoleAreCheckedPerQuery) {
    Published p("privrisk_cache_rights");
    pqxx::connection admin{p.db.conninfo()};
    pqxx::connection steward{p.steward()};
    pqxx::connection analyst{p.analyst()};
    const std::string direct = "SELECT diagnosis FROM privrisk.release('p') AS r(id int, diagnosis text, zip text, "
                               "age text) WHERE id = 1";
    // Read directly: a reader of the source only.
    exec(steward, "GRANT SELECT ON patients TO privrisk_cache_analyst");
    warm(analyst, direct, "flu-1");
    exec(steward, "REVOKE SELECT ON patients FROM privrisk_cache_analyst");
    EXPECT_NE(error_of(analyst, direct).find("you may not read its release"), std::string::npos);
    exec(steward, "GRANT SELECT ON patients TO privrisk_cache_analyst");
    EXPECT_EQ(one(analyst, direct), "flu-1");
    exec(steward, "REVOKE SELECT ON patients FROM privrisk_cache_analyst");
    // Through the view: its grant.
    warm(analyst, kDiagnosis, "flu-1");
    exec(steward, "REVOKE SELECT ON patients_release FROM privrisk_cache_analyst");
    EXPECT_NE(error_of(analyst, kDiagnosis).find("permission denied"), std::string::npos);
    exec(steward, "GRANT SELECT ON patients_release TO privrisk_cache_analyst");
    EXPECT_EQ(one(analyst, kDiagnosis), "flu-1");
    // One session, two roles: the steward's cached read does not serve the analyst.
    exec(admin, "GRANT privrisk_cache_analyst TO privrisk_cache_steward");
    warm(steward, direct, "flu-1");
    exec(steward, "SET ROLE privrisk_cache_analyst");
    EXPECT_NE(error_of(steward, direct).find("you may not read its release"), std::string::npos);
    exec(steward, "RESET ROLE");
    EXPECT_EQ(one(steward, direct), "flu-1");
    // A SECURITY DEFINER function of the steward reads as the steward, and only it.
    exec(steward, "CREATE FUNCTION first_diagnosis() RETURNS text LANGUAGE sql SECURITY DEFINER "
                  "SET search_path = pg_catalog AS $$" + direct + "$$");
    exec(steward, "GRANT EXECUTE ON FUNCTION first_diagnosis() TO privrisk_cache_analyst");
    EXPECT_EQ(one(analyst, "SELECT public.first_diagnosis()"), "flu-1");
    EXPECT_NE(error_of(analyst, direct).find("you may not read its release"), std::string::npos);
}

TEST(ReleaseCache, WatchedViewClosesForTheNextQuery) {
    Published p("privrisk_cache_watch");
    pqxx::connection admin{p.db.conninfo()};
    pqxx::connection steward{p.steward()};
    pqxx::connection analyst{p.analyst()};
    exec(admin, "SELECT privrisk.create_profile('cache_k3', '{\"k\": 3}', 'three rows per class')");
    exec(steward, "CREATE TABLE visits AS SELECT (47001 + i % 3)::text AS zip FROM generate_series(1, 30) AS i");
    exec(steward, "SECURITY LABEL FOR privrisk ON COLUMN visits.zip IS 'quasi_identifier'");
    exec(steward, "SELECT privrisk.create_policy('v', 'visits')");
    exec(steward, "SELECT privrisk.add_rule('v', 'zip', 'hide', 'true')");
    exec(steward, "SELECT privrisk.create_release_view('v', 'visits_release')");
    exec(steward, "GRANT SELECT ON visits_release TO privrisk_cache_analyst");
    const std::string count = "SELECT count(*) FROM visits_release";
    warm(analyst, count, "30");
    exec(steward, "SELECT privrisk.watch('visits_release', 'cache_k3', fail_closed => true)");
    warm(analyst, count, "30");  // passed: open, and cached as open
    exec(steward, "INSERT INTO visits VALUES ('99999')");
    exec(steward, "SELECT privrisk.recheck_view('visits_release')");
    EXPECT_NE(error_of(analyst, count).find("is closed"), std::string::npos);
    exec(steward, "DELETE FROM visits WHERE zip = '99999'");
    exec(steward, "SELECT privrisk.recheck_view('visits_release')");
    EXPECT_EQ(one(analyst, count), "30");
}

TEST(ReleaseCache, HierarchyReplacedIsRefusedByTheNextQuery) {
    Published p("privrisk_cache_hierarchy");
    pqxx::connection steward{p.steward()};
    pqxx::connection analyst{p.analyst()};
    pqxx::connection admin{p.db.conninfo()};
    const std::string age = "SELECT age FROM patients_release WHERE id = 1";
    warm(analyst, age, "[40, 50)");
    exec(admin, "SELECT privrisk.interval_hierarchy('cache_age', 0, 120, ARRAY[20, 60], replace => true)");
    EXPECT_NE(error_of(analyst, age).find("changed since the rule was approved"), std::string::npos);
    exec(steward, "SELECT privrisk.refresh_policy('p')");
    EXPECT_EQ(one(analyst, age), "[40, 60)");
}

// After a flush, the cache serves again: the second read of a transaction reads no
// catalog table (pg_stat_xact_user_tables counts this transaction's scans of them).
// It once kept nothing in a backend that had seen a flush: the freshness test read a
// count that PostgreSQL leaves out of the copy a query's active snapshot is.
TEST(ReleaseCache, ServesAgainAfterAChange) {
    Published p("privrisk_cache_serves_again");
    pqxx::connection steward{p.steward()};
    pqxx::connection analyst{p.analyst()};
    warm(analyst, kDiagnosis, "flu-1");
    exec(steward, "SELECT privrisk.add_rule('p', 'diagnosis', 'hide', 'false')");
    const char* scans =
        "SELECT coalesce(sum(coalesce(seq_scan, 0) + coalesce(idx_scan, 0)), 0) FROM pg_catalog.pg_stat_xact_user_tables "
        "WHERE schemaname = 'privrisk' AND relname IN ('policy', 'policy_rule', 'policy_column', 'release_view')";
    for (int round = 0; round < 2; ++round) {
        pqxx::work tx{analyst};
        EXPECT_EQ(one(tx, kDiagnosis), "NULL");
        const long after_first = std::stol(one(tx, scans));
        EXPECT_EQ(one(tx, kDiagnosis), "NULL");
        EXPECT_EQ(one(tx, kDiagnosis), "NULL");
        EXPECT_EQ(std::stol(one(tx, scans)), after_first) << "round " << round << ": the catalog was read again";
        if (round == 0) {
            EXPECT_GT(after_first, 0) << "the first read after the change reads the catalog";
        }
        tx.commit();
    }
}
