// Release views across sessions (docs/release.md): a policy changed while an analyst holds a
// cursor, pg_dump run by the analyst, and a pg_dump round trip of policies and views.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <memory>
#include <string>

#include "server.hpp"

namespace {

using itest::exec;

std::string one(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    auto r = tx.exec(sql);
    return r[0][0].is_null() ? "NULL" : r[0][0].as<std::string>();
}

// Output and exit status of a shell command.
std::pair<std::string, int> run(const std::string& cmd) {
    std::string out;
    FILE* p = popen((cmd + " 2>&1").c_str(), "r");
    if (!p) return {"", -1};
    std::array<char, 4096> buf;
    while (std::size_t n = std::fread(buf.data(), 1, buf.size(), p)) out.append(buf.data(), n);
    return {out, pclose(p)};
}

// Roles are cluster-wide: made once per test, dropped by the destructor.
struct Roles {
    Roles() {
        pqxx::connection c{"dbname=postgres"};
        for (const char* r : {"privrisk_it_steward", "privrisk_it_analyst"}) {
            exec(c, std::string("DROP ROLE IF EXISTS ") + r);
            exec(c, std::string("CREATE ROLE ") + r + " LOGIN");
        }
    }
    ~Roles() {
        try {
            pqxx::connection c{"dbname=postgres"};
            exec(c, "DROP ROLE IF EXISTS privrisk_it_steward, privrisk_it_analyst");
        } catch (...) {
        }
    }
};

// A table whose rows 4, 8, 12, … hold secrets, a policy hiding them, and its view for the analyst.
void publish(const itest::Database& db) {
    pqxx::connection admin{db.conninfo()};
    exec(admin, "GRANT CREATE ON SCHEMA public TO privrisk_it_steward");
    pqxx::connection s{db.conninfo() + " user=privrisk_it_steward"};
    exec(s, "CREATE TABLE patients AS SELECT i AS id, CASE WHEN i % 4 = 0 THEN 'SECRET-' || i ELSE 'flu' END AS "
            "diagnosis, i % 4 <> 0 AS consent, 'zip-' || i AS zip FROM generate_series(1, 20000) AS i");
    exec(s, "SELECT privrisk.create_policy('p', 'patients')");
    exec(s, "SELECT privrisk.add_rule('p', 'diagnosis', 'hide', 'consent')");
    exec(s, "SELECT privrisk.create_release_view('p', 'patients_release')");
    exec(s, "GRANT SELECT ON patients_release TO privrisk_it_analyst");
}

}  // namespace

TEST(ReleaseView, CursorKeepsItsPolicyWhileThePolicyChanges) {
    Roles roles;
    itest::Database db("privrisk_release_cursor");
    publish(db);
    pqxx::connection steward{db.conninfo() + " user=privrisk_it_steward"};
    pqxx::connection analyst{db.conninfo() + " user=privrisk_it_analyst"};
    pqxx::work tx{analyst};
    tx.exec("DECLARE c NO SCROLL CURSOR FOR SELECT id, diagnosis, zip FROM patients_release");
    auto first = tx.exec("FETCH 100 FROM c");
    ASSERT_EQ(first.size(), 100u);
    // Meanwhile the steward hides zip in every row (a policy with views is not
    // dropped alone, and dropping the view would wait for the open cursor):
    // the open cursor keeps the rules it started with.
    exec(steward, "SELECT privrisk.add_rule('p', 'zip', 'hide', 'false')");
    auto rest = tx.exec("FETCH ALL FROM c");
    tx.commit();
    long secrets = 0, disclosed = 0, rows = 0, zips = 0;
    for (const pqxx::result* part : {&first, &rest})
        for (auto row : *part) {
            ++rows;
            disclosed += !row[1].is_null();
            secrets += !row[1].is_null() && row[1].as<std::string>().rfind("SECRET", 0) == 0;
            zips += !row[2].is_null();
        }
    EXPECT_EQ(rows, 20000);
    EXPECT_EQ(secrets, 0);
    EXPECT_EQ(disclosed, 15000);  // every consenting row, before the change and after it
    EXPECT_EQ(zips, 20000);
    // New queries follow the new rules at once, through the old view and a new one.
    EXPECT_EQ(one(analyst, "SELECT count(zip) FROM patients_release"), "0");
    exec(steward, "SELECT privrisk.create_release_view('p', 'patients_release_2')");
    exec(steward, "GRANT SELECT ON patients_release_2 TO privrisk_it_analyst");
    EXPECT_EQ(one(analyst, "SELECT count(zip) FROM patients_release_2"), "0");
    EXPECT_EQ(one(analyst, "SELECT count(*) FROM patients_release_2 WHERE diagnosis LIKE 'SECRET%'"), "0");
    EXPECT_EQ(one(analyst, "SELECT count(diagnosis) FROM patients_release_2"), "15000");
}

TEST(ReleaseView, PgDumpByTheAnalystHoldsNoHiddenValue) {
    Roles roles;
    itest::Database db("privrisk_release_dump_analyst");
    publish(db);
    auto [view_only, status] = run("pg_dump -U privrisk_it_analyst -d " + db.name() + " -t patients_release");
    EXPECT_EQ(status, 0) << view_only;
    EXPECT_NE(view_only.find("privrisk.release('public.p'::text)"), std::string::npos) << view_only;
    EXPECT_EQ(view_only.find("SECRET"), std::string::npos);
    // The whole database: the analyst may not read the source, so pg_dump stops, and
    // whatever it wrote before stopping holds no hidden value either.
    auto [whole, whole_status] = run("pg_dump -U privrisk_it_analyst -d " + db.name());
    EXPECT_NE(whole_status, 0);
    EXPECT_NE(whole.find("permission denied"), std::string::npos) << whole;
    EXPECT_EQ(whole.find("SECRET"), std::string::npos);
    auto [data, data_status] = run("pg_dump -U privrisk_it_analyst -d " + db.name() + " --data-only -t patients_release");
    EXPECT_EQ(data.find("SECRET"), std::string::npos);
}

TEST(ReleaseView, PgDumpRoundTripKeepsPoliciesAndViews) {
    Roles roles;
    itest::Database src("privrisk_release_dump_src");
    itest::Database dst("privrisk_release_dump_dst");
    publish(src);
    {
        pqxx::connection s{src.conninfo() + " user=privrisk_it_steward"};
        exec(s, "SELECT privrisk.add_rule('p', 'zip', 'hide', $$id < 100 AND zip LIKE 'zip-%'$$)");
        // A privacy budget and a spend: both survive the dump, and so does the ledger's sequence.
        exec(s, "SELECT privrisk.set_budget('patients', 1, 1e-3)");
        exec(s, "SELECT count(*) FROM privrisk.dp_release('patients', ARRAY['consent'], ARRAY[NULL], 0.5, 1e-4, "
                "levels => ARRAY[0]) AS r(consent text)");
    }
    pqxx::connection d0{dst.conninfo()};
    exec(d0, "DROP EXTENSION privrisk; DROP SCHEMA privrisk");  // the dump creates both
    auto [out, status] = run("pg_dump -d " + src.name() + " | psql -q -v ON_ERROR_STOP=1 -d " + dst.name());
    ASSERT_EQ(status, 0) << out;
    pqxx::connection s{src.conninfo()};
    pqxx::connection d{dst.conninfo()};
    const std::string rules = "SELECT string_agg(policy || rule || column_name || operator || condition, ';' ORDER BY rule) "
                              "FROM privrisk.policy_rule";
    EXPECT_EQ(one(d, rules), one(s, rules));
    const std::string released = "SELECT md5(string_agg(id || coalesce(diagnosis, '⊥') || coalesce(zip, '⊥'), ',' "
                                 "ORDER BY id)) FROM patients_release";
    EXPECT_EQ(one(d, released), one(s, released));
    EXPECT_EQ(one(d, "SELECT count(zip) FROM patients_release"), "99");  // disclosed only where id < 100
    EXPECT_EQ(one(d, "SELECT view::text FROM privrisk.release_view"), "patients_release");
    pqxx::connection analyst{dst.conninfo() + " user=privrisk_it_analyst"};
    EXPECT_EQ(one(analyst, "SELECT count(*) FROM patients_release WHERE diagnosis LIKE 'SECRET%'"), "0");
    const std::string budget = "SELECT relation::text || epsilon || spent_epsilon || spent_delta FROM privrisk.budget";
    EXPECT_EQ(one(d, budget), one(s, budget));
    EXPECT_EQ(one(d, "SELECT string_agg(id || spent_by || epsilon || mechanism || parameters::text, ';') FROM privrisk.budget_ledger"),
              one(s, "SELECT string_agg(id || spent_by || epsilon || mechanism || parameters::text, ';') FROM privrisk.budget_ledger"));
    exec(d, "SELECT count(*) FROM privrisk.dp_release('patients', ARRAY['consent'], ARRAY[NULL], 0.5, 1e-4, "
            "levels => ARRAY[0]) AS r(consent text)");  // the rest of the budget
    EXPECT_EQ(one(d, "SELECT count(*) || ',' || max(id) FROM privrisk.budget_ledger"), "2,2");
}
