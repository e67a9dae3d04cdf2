// Benchmark driver: each operation is timed against the PostgreSQL baseline
// that bounds it, in the same run, and printed as a ratio (absolute times on
// shared machines mean little). Runs the pairs interleaved and takes medians.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <functional>
#include <pqxx/pqxx>
#include <sstream>
#include <string>
#include <vector>

#include "../test/common/notices.hpp"
#include "../test/common/proc_status.hpp"
#include "../test/common/read_file.hpp"
#include "bench_common.hpp"

namespace {

using privrisk_test::read_file;

using namespace privrisk_bench;

// Peak resident memory of a backend (VmHWM), in kB.
long peak_rss_kb(int pid) { return privrisk_test::proc_status_kb(pid, "VmHWM"); }

using privrisk_test::Notices;  // audit() reports its phases and memory in DEBUG lines

void bench_generalize(pqxx::connection& c, const Options& o) {
    {
        pqxx::nontransaction tx{c};
        tx.exec("SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy WHERE name = 'bench_age'");
        tx.exec_params("SELECT privrisk.load_hierarchy('bench_age', $1)",
                       read_file(o.shared + "/data/adult/adult_hierarchy_age.csv"));
        tx.exec("DROP TABLE IF EXISTS bench_people, bench_age_lookup");
        tx.exec("SELECT setseed(0.5)");
        tx.exec(
            "CREATE TABLE bench_people AS SELECT i AS id, (1 + floor(random() * 100))::int AS age "
            "FROM generate_series(1, " +
            std::to_string(o.rows) + ") AS i");
        // The plain-SQL alternative: a (value, level, generalized) lookup table joined in.
        tx.exec(
            "CREATE TABLE bench_age_lookup AS SELECT l.path[1] AS value, lv AS level, "
            "privrisk.generalize('bench_age', l.path[1], lv) AS generalized "
            "FROM privrisk.hierarchy_leaf l, generate_series(0, 4) AS lv WHERE l.hierarchy = 'bench_age'");
        tx.exec("CREATE INDEX ON bench_age_lookup (value, level)");
        tx.exec("VACUUM ANALYZE bench_people");
        tx.exec("ANALYZE bench_age_lookup");
    }
    const std::string op = "SELECT count(privrisk.generalize('bench_age', age::text, 2)) FROM bench_people";
    const std::string join =
        "SELECT count(l.generalized) FROM bench_people p JOIN bench_age_lookup l "
        "ON l.value = p.age::text AND l.level = 2";
    // Same answer both ways, row by row, before anything is timed.
    std::string check_op = scalar(
        c, "SELECT md5(string_agg(privrisk.generalize('bench_age', age::text, 2), ',' ORDER BY id)) FROM bench_people");
    std::string check_join = scalar(c,
                                    "SELECT md5(string_agg(l.generalized, ',' ORDER BY p.id)) FROM bench_people p "
                                    "JOIN bench_age_lookup l ON l.value = p.age::text AND l.level = 2");
    if (check_op != check_join) throw std::runtime_error("generalize and the lookup join disagree");
    std::string n = std::to_string(o.rows / 1000000) + "M";
    compare(c, o, "generalize(age, level 2), " + n + " rows vs lookup-table join", op, join, 1.0);
    compare(c, o, "gen(int, level 2), " + n + " rows vs lookup-table join",
            "SELECT count(privrisk.gen(age, 'bench_age', 2)) FROM bench_people", join, 1.0);
}

// A census-like table of `rows` rows, from the demo's seeded generator.
std::string census_table(pqxx::connection& c, const Options& o, long rows) {
    std::string name = "bench_census_" + std::to_string(rows);
    std::string exists = scalar(c, "SELECT count(*) FROM pg_class WHERE relname = " + c.quote(name));
    if (exists != "0") return name;
    std::string sql = read_file(o.root + "/demo/generate.sql");
    for (auto [var, value] : {std::pair<std::string, std::string>{":rows", std::to_string(rows)}, {":seed", "0.42"}}) {
        for (std::size_t at; (at = sql.find(var)) != std::string::npos;) sql.replace(at, var.size(), value);
    }
    pqxx::nontransaction tx{c};
    tx.exec("DROP TABLE IF EXISTS census");
    tx.exec(sql);
    tx.exec("ALTER TABLE census RENAME TO " + tx.quote_name(name));
    tx.exec("VACUUM ANALYZE " + tx.quote_name(name));
    return name;
}

void age_zip_hierarchies(pqxx::transaction_base& tx, const std::string& prefix, const std::string& widths);

// A labelled table (docs/labels.md): every quasi-identifier of the census table with a
// hierarchy (age in 5-year groups, zip by prefix, sex and race by ARX's Adult files),
// audited at level 1, against PostgreSQL grouping by gen() at the same levels (k only).
// audit() reads the level-0 classes through the class reader and generalizes each
// distinct value once (docs/measures.md); the labels are taken off again afterwards.
void bench_labelled_audit(pqxx::connection& c, const Options& o) {
    const long rows = o.sizes.back();
    const std::string t = census_table(c, o, rows), n = std::to_string(rows / 1000000) + "M";
    const std::string labels[][2] = {
        {"age", "bench_lab_age"}, {"sex", "bench_lab_sex"}, {"race", "bench_lab_race"}, {"zip", "bench_lab_zip"}};
    {
        pqxx::nontransaction tx{c};
        age_zip_hierarchies(tx, "bench_lab", "5, 10, 20");
        for (const char* file : {"sex", "race"}) {
            tx.exec("SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy WHERE name = 'bench_lab_" +
                    std::string(file) + "'");
            tx.exec_params("SELECT privrisk.load_hierarchy($1, $2)", "bench_lab_" + std::string(file),
                           read_file(o.shared + "/data/adult/adult_hierarchy_" + file + ".csv"));
        }
        for (const auto& l : labels)
            tx.exec("SECURITY LABEL FOR privrisk ON COLUMN " + t + "." + l[0] + " IS 'quasi_identifier(" + l[1] + ")'");
        tx.exec("SECURITY LABEL FOR privrisk ON COLUMN " + t + ".occupation IS 'sensitive'");
    }
    std::string gen;
    for (const auto& l : labels)
        gen += (gen.empty() ? "" : ", ") + std::string("privrisk.gen(") + l[0] + ", '" + l[1] + "', 1)";
    const std::string audit = "SELECT privrisk.audit('" + t + "', levels => ARRAY[1, 1, 1, 1])";
    std::printf("-- %s rows, labelled: %s; audited at level 1 (%s classes)\n", n.c_str(), gen.c_str(),
                scalar(c, audit + "->>'classes'").c_str());
    compare(c, o, "labelled audit() at level 1 vs min(count(*)) GROUP BY gen(), " + n, audit,
            "SELECT min(c) FROM (SELECT count(*) AS c FROM " + t + " GROUP BY " + gen + ") AS k",
            rows >= 10000000 ? 0.4 : 0);
    compare(c, o, "labelled audit() with 2 workers vs 0 workers (speed-up = 1 / ratio), " + n,
            "SET max_parallel_workers_per_gather = 2; " + audit, "SET max_parallel_workers_per_gather = 0; " + audit,
            rows >= 10000000 ? 0.625 : 0);
    run_ms(c, "RESET max_parallel_workers_per_gather");
    pqxx::nontransaction tx{c};
    for (const char* column : {"age", "sex", "race", "zip", "occupation"})
        tx.exec("SECURITY LABEL FOR privrisk ON COLUMN " + t + "." + column + " IS NULL");
}

void bench_measures(pqxx::connection& c, const Options& o) {
    const std::string qi = "age, sex, race, zip";
    for (long rows : o.sizes) {
        std::string t = census_table(c, o, rows);
        std::string n = std::to_string(rows / 1000000) + "M";
        std::string classes = scalar(c, "SELECT count(*) FROM (SELECT 1 FROM " + t + " GROUP BY " + qi + ") AS g");
        std::printf("-- %s rows, %s classes of (%s), default work_mem\n", n.c_str(), classes.c_str(), qi.c_str());
        compare(c, o, "hist(occupation) GROUP BY 4 QIs vs count(*) GROUP BY, " + n,
                "SELECT count(*) FROM (SELECT privrisk.hist(occupation) FROM " + t + " GROUP BY " + qi + ") AS c",
                "SELECT count(*) FROM (SELECT count(*) FROM " + t + " GROUP BY " + qi + ") AS c", 1.3);
        const std::string audit =
            "SELECT privrisk.audit('" + t + "', ARRAY['age', 'sex', 'race', 'zip'], 'occupation')";
        // Both with the server's parallel settings (max_parallel_workers_per_gather 2 by default).
        compare(c, o, "audit() (every measure) vs min(count(*)) GROUP BY (k only), " + n, audit,
                "SELECT min(c) FROM (SELECT count(*) AS c FROM " + t + " GROUP BY " + qi + ") AS k",
                rows >= 10000000 ? 0.4 : 0.7);
        compare(c, o, "audit() vs SELECT count(*) (the scan alone), " + n, audit, "SELECT count(*) FROM " + t, 0);
        // The parallel read's speed-up: a ratio <= 0.625 is a speed-up >= 1.6x.
        compare(c, o, "audit() with 2 workers vs 0 workers (speed-up = 1 / ratio), " + n,
                "SET max_parallel_workers_per_gather = 2; " + audit,
                "SET max_parallel_workers_per_gather = 0; " + audit, rows >= 10000000 ? 0.625 : 0);
        // What two workers give PostgreSQL itself on this machine in this run, with a scan that
        // parallelizes about perfectly (a sum of a hash per row): on a shared VM the second core
        // is not always whole, and this line shows when it is not.
        if (rows >= 10000000) {
            const std::string scan = "SELECT sum(hashtext(zip)::bigint) FROM " + t;
            compare(c, o, "  (context) PostgreSQL's sum(hashtext(zip)), 2 workers vs 0, " + n,
                    "SET max_parallel_workers_per_gather = 2; " + scan,
                    "SET max_parallel_workers_per_gather = 0; " + scan, 0);
        }
        run_ms(c, "RESET max_parallel_workers_per_gather");
    }
    bench_labelled_audit(c, o);
    // Millions of classes: memory stays bounded by privrisk.audit_memory_limit; past it audit()
    // falls back to a spilling GROUP BY. Reported in a fresh backend so VmHWM is audit()'s own.
    std::string t = census_table(c, o, o.sizes.back());
    for (const char* limit : {"512MB", "64MB"}) {
        pqxx::connection fresh{""};
        Notices notices(fresh);
        int pid = std::stoi(scalar(fresh, "SELECT pg_backend_pid()"));
        scalar(fresh, "SELECT count(*) FROM " + t);  // touch the table's shared buffers first:
        long before = peak_rss_kb(pid);              // VmHWM counts them, audit() does not own them
        {
            pqxx::nontransaction tx{fresh};
            tx.exec(std::string("SET privrisk.audit_memory_limit = '") + limit + "'");
            tx.exec("SET client_min_messages = debug1");
        }
        auto t0 = std::chrono::steady_clock::now();
        std::string classes =
            scalar(fresh, "SELECT privrisk.audit('" + t + "', ARRAY['id'], 'occupation')->>'classes'");
        double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
        std::string phase;
        for (auto& l : notices.lines)
            if (l.find("audit:") != std::string::npos) phase = l.substr(l.find("audit:"));
        while (!phase.empty() && (phase.back() == '\n' || phase.back() == ' ')) phase.pop_back();
        std::printf(
            "audit() of %s classes with privrisk.audit_memory_limit = %s: %.0f ms, backend peak RSS +%ld MB "
            "over a plain scan\n   %s\n",
            classes.c_str(), limit, ms, (peak_rss_kb(pid) - before) / 1024, phase.c_str());
    }
}

void bench_ck(pqxx::connection& c, const Options& o) {
    // The knapsack next to the scan: both level-2 aggregates read the same classes.
    std::string t = census_table(c, o, o.sizes.back());
    std::string classes = "bench_classes_" + std::to_string(o.sizes.back());
    {
        pqxx::nontransaction tx{c};
        tx.exec("DROP TABLE IF EXISTS " + classes);
        tx.exec("CREATE TABLE " + classes + " AS SELECT privrisk.hist(occupation) AS h FROM " + t +
                " GROUP BY age, sex, race, zip");
        tx.exec("VACUUM ANALYZE " + classes);
    }
    std::string n = scalar(c, "SELECT count(*) FROM " + classes);
    compare(c, o, "ck_disclosure_curve(h, 13) vs k_anonymity(h), " + n + " classes",
            "SELECT privrisk.ck_disclosure_curve(h, 13) FROM " + classes,
            "SELECT privrisk.k_anonymity(h) FROM " + classes, 1.2);
    // Without single-value classes the disclosure never reaches 1 at k = 0, so the early exit
    // never applies and every class runs the full knapsack step: the algorithm's own cost.
    std::string diverse = scalar(c, "SELECT count(*) FROM " + classes + " WHERE privrisk.hist_distinct(h) >= 2");
    compare(c, o, "  the same, " + diverse + " classes with >= 2 values (no early exit)",
            "SELECT privrisk.ck_disclosure_curve(h, 13) FROM " + classes + " WHERE privrisk.hist_distinct(h) >= 2",
            "SELECT privrisk.k_anonymity(h) FROM " + classes + " WHERE privrisk.hist_distinct(h) >= 2", 0);
    // The 72-node lattice of [MKMGH07] on UCI Adult (scripts/bench loads table adult):
    // age 6 levels (0-aligned widths 5, 10, 20, 40, then ⊥), marital status 3, race 2, sex 2; occupation sensitive.
    if (scalar(c, "SELECT count(*) FROM pg_class WHERE relname = 'adult'") == "0") {
        std::printf("(no adult table: the lattice benchmark needs scripts/bench)\n");
        return;
    }
    {
        pqxx::nontransaction tx{c};
        tx.exec("SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy WHERE name LIKE 'ck_%'");
        tx.exec("SELECT privrisk.interval_hierarchy('ck_age', 0, 160, ARRAY[5, 10, 20, 40])");
        for (auto [name, file] : {std::pair<std::string, std::string>{"ck_marital", "marital-status"},
                                  {"ck_race", "race"},
                                  {"ck_sex", "sex"}})
            tx.exec_params("SELECT privrisk.load_hierarchy($1, $2)", name,
                           read_file(o.shared + "/data/adult/adult_hierarchy_" + file + ".csv"));
    }
    std::vector<double> runs;
    std::string checksum;
    for (int r = 0; r < o.repeat; ++r) {
        pqxx::nontransaction tx{c};
        auto t0 = std::chrono::steady_clock::now();
        // One scan for the base classes, then every node rolled up from them.
        tx.exec(
            "CREATE TEMP TABLE ck_base AS SELECT age, marital_status, race, sex, privrisk.hist(occupation) AS h "
            "FROM adult GROUP BY age, marital_status, race, sex");
        auto result = tx.exec(
            "SELECT a, m, r, s, (SELECT privrisk.ck_disclosure_curve(h, 13) FROM (SELECT privrisk.hist_merge(h) AS h "
            "FROM ck_base GROUP BY privrisk.gen(age, 'ck_age', a), privrisk.gen(marital_status, 'ck_marital', m), "
            "privrisk.gen(race, 'ck_race', r), privrisk.gen(sex, 'ck_sex', s)) AS b) AS curve "
            "FROM generate_series(0, 5) a, generate_series(0, 2) m, generate_series(0, 1) r, generate_series(0, 1) s");
        runs.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
        tx.exec("DROP TABLE ck_base");
        if (result.size() != 72) throw std::runtime_error("the lattice does not have 72 nodes");
        checksum = result[0]["curve"].c_str();
    }
    std::printf("%-62s %8.1f ms  target < 1000 ms  %s\n", "72-node Adult lattice, ck_disclosure_curve(h, 13) per node",
                median(runs), median(runs) < 1000 ? "met" : "NOT MET");
    std::printf("   bottom node (0,0,0,0): %s\n", checksum.c_str());
}

// The census table's hierarchies, made anew: <prefix>_age (age intervals of
// the given widths, from 0 to 160) and <prefix>_zip (zip prefixes).
void age_zip_hierarchies(pqxx::transaction_base& tx, const std::string& prefix, const std::string& widths) {
    tx.exec("SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy WHERE name IN (" + tx.quote(prefix + "_age") +
            ", " + tx.quote(prefix + "_zip") + ")");
    tx.exec("SELECT privrisk.interval_hierarchy(" + tx.quote(prefix + "_age") + ", 0, 160, ARRAY[" + widths + "])");
    tx.exec("SELECT privrisk.prefix_hierarchy(" + tx.quote(prefix + "_zip") + ", 5)");
}

// A release with 3 rules (gen age, gen zip, hide salary_class, each under a condition on
// the original row) read through Custom Scan (PrivriskRelease), against the bare source
// and against the plain-SQL way to publish the same rows: a security_barrier view of
// CASE expressions over lookup-table joins.
void bench_release(pqxx::connection& c, const Options& o) {
    std::string t = census_table(c, o, o.sizes.back());
    std::string n = std::to_string(o.sizes.back() / 1000000) + "M";
    {
        pqxx::nontransaction tx{c};
        tx.exec("SELECT privrisk.drop_policy(name) FROM privrisk.policy WHERE name = 'bench_release'");
        age_zip_hierarchies(tx, "bench_rel", "5, 10, 20");
        tx.exec("DROP VIEW IF EXISTS bench_release_view, bench_case_view");
        tx.exec("DROP TABLE IF EXISTS bench_rel_age_lookup, bench_rel_zip_lookup");
        tx.exec("SELECT privrisk.create_policy('bench_release', " + tx.quote(t) + ")");
        tx.exec(
            "SELECT privrisk.add_rule('bench_release', 'age', 'gen', $$marital_status = 'Never-married'$$, "
            "'bench_rel_age', 2)");
        tx.exec("SELECT privrisk.add_rule('bench_release', 'zip', 'gen', $$race = 'White'$$, 'bench_rel_zip', 2)");
        tx.exec("SELECT privrisk.add_rule('bench_release', 'salary_class', 'hide', 'age < 30')");
        tx.exec("SELECT privrisk.create_release_view('bench_release', 'bench_release_view')");
        tx.exec(
            "CREATE TABLE bench_rel_age_lookup AS SELECT DISTINCT age AS value, "
            "privrisk.generalize('bench_rel_age', age::text, 2) AS generalized FROM " +
            t);
        tx.exec(
            "CREATE TABLE bench_rel_zip_lookup AS SELECT DISTINCT zip AS value, "
            "privrisk.generalize('bench_rel_zip', zip, 2) AS generalized FROM " +
            t);
        tx.exec("ANALYZE bench_rel_age_lookup");
        tx.exec("ANALYZE bench_rel_zip_lookup");
        tx.exec(
            "CREATE VIEW bench_case_view WITH (security_barrier) AS SELECT s.id, "
            "CASE WHEN s.marital_status = 'Never-married' THEN s.age::text ELSE a.generalized END AS age, s.sex, "
            "s.race, "
            "CASE WHEN s.race = 'White' THEN s.zip ELSE z.generalized END AS zip, s.marital_status, s.education, "
            "s.occupation, CASE WHEN s.age < 30 THEN s.salary_class END AS salary_class FROM " +
            t +
            " s "
            "LEFT JOIN bench_rel_age_lookup a ON a.value = s.age LEFT JOIN bench_rel_zip_lookup z ON z.value = s.zip");
    }
    // Same rows both ways before anything is timed.
    const std::string digest =
        "SELECT sum(hashtext(concat_ws('|', id, age, sex, race, zip, marital_status, education, "
        "occupation, salary_class))::numeric) FROM ";
    if (scalar(c, digest + "bench_release_view") != scalar(c, digest + "bench_case_view"))
        throw std::runtime_error("release() and the CASE view disagree");
    std::printf("-- %s rows, 3 rules (gen age, gen zip, hide salary_class)\n", n.c_str());
    compare(c, o, "count(*) through release() vs count(*) on the source, " + n,
            "SELECT count(*) FROM bench_release_view", "SELECT count(*) FROM " + t, 1.15);
    compare(c, o, "full read (COPY TO /dev/null) through release() vs the source, " + n,
            "COPY (SELECT * FROM bench_release_view) TO '/dev/null'", "COPY (SELECT * FROM " + t + ") TO '/dev/null'",
            1.15);
    compare(c, o, "count(*) through release() vs security_barrier CASE/lookup view, " + n,
            "SELECT count(*) FROM bench_release_view", "SELECT count(*) FROM bench_case_view", 1.0);
    compare(c, o, "full read through release() vs security_barrier CASE/lookup view, " + n,
            "COPY (SELECT * FROM bench_release_view) TO '/dev/null'",
            "COPY (SELECT * FROM bench_case_view) TO '/dev/null'", 1.0);
}

// A release with record suppression (docs/release.md, "Record suppression") against
// the same release without it: the same 3 rules, plus a suppression rule on the
// classes of (age, zip, sex, race) as released, k = 5. The suppressing read counts
// the whole source before its first row, so its cost includes that pass.
void bench_suppression(pqxx::connection& c, const Options& o) {
    std::string t = census_table(c, o, o.sizes.back());
    std::string n = std::to_string(o.sizes.back() / 1000000) + "M";
    {
        pqxx::nontransaction tx{c};
        tx.exec(
            "SELECT privrisk.drop_policy(name, true) FROM privrisk.policy WHERE name IN "
            "('public.bench_plain', 'public.bench_suppress')");
        age_zip_hierarchies(tx, "bench_sup", "5, 10, 20");
        for (std::string p : {"bench_plain", "bench_suppress"}) {
            tx.exec("SELECT privrisk.create_policy('" + p + "', " + tx.quote(t) + ")");
            tx.exec("SELECT privrisk.add_rule('" + p +
                    "', 'age', 'gen', $$marital_status = 'Never-married'$$, 'bench_sup_age', 2)");
            tx.exec("SELECT privrisk.add_rule('" + p + "', 'zip', 'gen', $$race = 'White'$$, 'bench_sup_zip', 2)");
            tx.exec("SELECT privrisk.add_rule('" + p + "', 'salary_class', 'hide', 'age < 30')");
            tx.exec("SELECT privrisk.create_release_view('" + p + "', '" + p + "_view')");
        }
        tx.exec(
            "SELECT privrisk.set_suppression('bench_suppress', ARRAY['age', 'zip', 'sex', 'race'], "
            "'{\"k\": 5, \"max_suppression\": 0.1}')");
    }
    std::printf("-- %s rows, 3 rules; suppression of the classes of (age, zip, sex, race), k = 5: %s\n", n.c_str(),
                scalar(c, "SELECT privrisk.release_suppression('bench_suppress_view')::text").c_str());
    compare(c, o, "full read (COPY) suppressing vs same release unsuppressed, " + n,
            "COPY (SELECT * FROM bench_suppress_view) TO '/dev/null'",
            "COPY (SELECT * FROM bench_plain_view) TO '/dev/null'", 1.5);
    compare(c, o, "count(*) suppressing vs same release unsuppressed, " + n, "SELECT count(*) FROM bench_suppress_view",
            "SELECT count(*) FROM bench_plain_view", 0);
}

// Times `pseudonymized`, `hidden` and `as_is` (the same query through the three
// views), interleaved, and prints the pseudonym against hide (the target) and what
// releasing the value as it is costs against hide: the floor of any rule whose
// output is a value, which the pseudonym cannot go under.
void compare_pseudonym(pqxx::connection& c, const Options& o, const std::string& label, const std::string& query) {
    auto through = [&](const char* view) {
        std::string q = query;
        q.replace(q.find("VIEW"), 4, view);
        return q;
    };
    const std::string views[3] = {through("bench_pseud_view"), through("bench_hide_view"), through("bench_asis_view")};
    std::vector<double> ms[3];
    for (const auto& q : views) run_ms(c, q);  // warm caches
    for (int i = 0; i < o.repeat; ++i)
        for (int v = 0; v < 3; ++v) ms[v].push_back(run_ms(c, views[v]));
    const double pseud = median(ms[0]), hide = median(ms[1]), as_is = median(ms[2]);
    print_ratio(label + " pseudonymize vs hide", pseud, hide, 1.2);
    print_ratio(label + " as it is vs hide (the floor)", as_is, hide, 0);
    print_ratio(label + " pseudonymize vs as it is", pseud, as_is, 0);
}

// Pseudonymize vs hide on the same identifier column (docs/pseudonymization.md): the
// scan's cost of one SipHash per distinct value (a cache of recent pseudonyms serves
// repeats), with every identifier distinct, and with each repeated 10 times; and the
// same column released as it is, for the cost of any value the release writes.
void bench_pseudonym(pqxx::connection& c, const Options& o) {
    const long rows = o.sizes.back();
    const std::string n = std::to_string(rows / 1000000) + "M";
    for (long repeats : {1L, 10L}) {
        const std::string t = "bench_pseud_" + std::to_string(repeats);
        {
            pqxx::nontransaction tx{c};
            tx.exec(
                "SELECT privrisk.drop_policy(name, true) FROM privrisk.policy WHERE base_name IN "
                "('bench_pseud', 'bench_hide', 'bench_asis')");
            tx.exec("DROP TABLE IF EXISTS " + t + " CASCADE");
            tx.exec("CREATE TABLE " + t + " AS SELECT i AS id, 'person-' || (i / " + std::to_string(repeats) +
                    ") || '@example.org' AS email, i % 90 AS age FROM generate_series(1, " + std::to_string(rows) +
                    ") AS i");
            tx.exec("VACUUM ANALYZE " + t);
            tx.exec("SELECT privrisk.create_policy('bench_pseud', '" + t + "')");
            tx.exec("SELECT privrisk.add_rule('bench_pseud', 'email', 'pseudonymize')");
            tx.exec("SELECT privrisk.create_release_view('bench_pseud', 'bench_pseud_view')");
            tx.exec("SELECT privrisk.create_policy('bench_hide', '" + t + "')");
            tx.exec("SELECT privrisk.add_rule('bench_hide', 'email', 'hide')");
            tx.exec("SELECT privrisk.create_release_view('bench_hide', 'bench_hide_view')");
            tx.exec("SELECT privrisk.create_policy('bench_asis', '" + t + "')");
            tx.exec("SELECT privrisk.add_rule('bench_asis', 'age', 'hide')");  // email as it is
            tx.exec("SELECT privrisk.create_release_view('bench_asis', 'bench_asis_view')");
        }
        const std::string distinct = scalar(c, "SELECT count(DISTINCT email) FROM bench_pseud_view");
        std::printf("-- %s rows, %s distinct identifiers (each in %ld rows): pseudonymize vs hide on the same column\n",
                    n.c_str(), distinct.c_str(), repeats);
        const std::string per = repeats == 1 ? "distinct" : "x" + std::to_string(repeats);
        compare_pseudonym(c, o, "count(email), " + per + ", " + n + ":", "SELECT count(email) FROM VIEW");
        compare_pseudonym(c, o, "COPY, " + per + ", " + n + ":", "COPY (SELECT * FROM VIEW) TO '/dev/null'");
        pqxx::nontransaction tx{c};
        tx.exec(
            "SELECT privrisk.drop_policy(name, true) FROM privrisk.policy WHERE base_name IN "
            "('bench_pseud', 'bench_hide', 'bench_asis')");
        tx.exec("DROP TABLE " + t);
    }
}

// The generalization search against the physical floor of its input: one GROUP BY
// scan of the same table at level 0. ARX's Adult extract with its 9 hierarchies
// (12,960 nodes), and the generated census table with 6 quasi-identifiers.
void bench_search(pqxx::connection& c, const Options& o) {
    const std::vector<std::pair<std::string, std::string>> arx = {{"sex", "sex"},
                                                                  {"age", "age"},
                                                                  {"race", "race"},
                                                                  {"marital_status", "marital-status"},
                                                                  {"education", "education"},
                                                                  {"native_country", "native-country"},
                                                                  {"workclass", "workclass"},
                                                                  {"occupation", "occupation"},
                                                                  {"salary_class", "salary-class"}};
    std::string columns, hierarchies, group;
    {
        pqxx::nontransaction tx{c};
        tx.exec("SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy WHERE name LIKE 'bench_arx_%'");
        tx.exec("DROP TABLE IF EXISTS bench_arx");
        for (const auto& [column, file] : arx) {
            tx.exec_params("SELECT privrisk.load_hierarchy($1, $2)", "bench_arx_" + file,
                           read_file(o.shared + "/data/adult/adult_hierarchy_" + file + ".csv"));
            columns += std::string(columns.empty() ? "" : ", ") + column + " text";
            hierarchies += std::string(hierarchies.empty() ? "" : ", ") + "'bench_arx_" + file + "'";
            group += std::string(group.empty() ? "" : ", ") + column;
        }
        tx.exec("CREATE TABLE bench_arx (" + columns + ")");
        std::string select;
        for (std::size_t i = 0; i < arx.size(); ++i)
            select += std::string(i ? ", " : "") + "split_part(line, ';', " + std::to_string(i + 1) + ")";
        tx.exec_params(
            "INSERT INTO bench_arx SELECT " + select +
                " FROM regexp_split_to_table($1, E'\\r?\\n') WITH ORDINALITY AS l(line, n) WHERE n > 1 AND line <> ''",
            read_file(o.shared + "/data/adult/adult.csv"));
        tx.exec("VACUUM ANALYZE bench_arx");
    }
    std::string qi = "ARRAY[" + std::string();
    for (std::size_t i = 0; i < arx.size(); ++i) qi += std::string(i ? ", " : "") + "'" + arx[i].first + "'";
    qi += "]";
    std::string rows = scalar(c, "SELECT count(*) FROM bench_arx");
    std::string base = scalar(c, "SELECT count(*) FROM (SELECT 1 FROM bench_arx GROUP BY " + group + ") AS g");
    std::printf("-- ARX Adult: %s rows, %s classes at level 0, 12,960 nodes\n", rows.c_str(), base.c_str());
    const std::string floor = "SELECT count(*) FROM (SELECT count(*) FROM bench_arx GROUP BY " + group + ") AS g";
    for (const char* suppression : {"0", "0.01"}) {
        std::string search = "SELECT privrisk.search('bench_arx', " + qi + ", ARRAY[" + hierarchies +
                             "], NULL, '{\"k\": 5, \"max_suppression\": " + suppression + "}')";
        std::string stats = scalar(c, "SELECT r->'search' FROM (" + search + ") AS s(r)");
        compare(c, o,
                std::string("search k=5, ") + (suppression[1] ? "1 %" : "0 %") +
                    " suppression vs GROUP BY at level 0, Adult",
                search, floor, 3.0);
        std::printf("   %s\n", stats.c_str());
    }

    std::string t = census_table(c, o, 1000000);
    {
        pqxx::nontransaction tx{c};
        tx.exec("SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy WHERE name LIKE 'bench_s_%'");
        std::string sql = read_file(o.root + "/demo/hierarchies.sql");
        // the demo's hierarchies under names of their own
        for (const char* name :
             {"age", "zip", "sex", "race", "marital_status", "education", "occupation", "salary_class"}) {
            std::string from = "('" + std::string(name) + "',", to = "('bench_s_" + std::string(name) + "',";
            for (std::size_t at; (at = sql.find(from)) != std::string::npos;) sql.replace(at, from.size(), to);
        }
        tx.exec(sql);
    }
    const std::string census_qi = "age, sex, race, zip, marital_status, education";
    std::string search = "SELECT privrisk.search('" + t +
                         "', ARRAY['age', 'sex', 'race', 'zip', 'marital_status', "
                         "'education'], ARRAY['bench_s_age', 'bench_s_sex', 'bench_s_race', 'bench_s_zip', "
                         "'bench_s_marital_status', 'bench_s_education'], NULL, '{\"k\": 5}')";
    std::string classes = scalar(c, "SELECT count(*) FROM (SELECT 1 FROM " + t + " GROUP BY " + census_qi + ") AS g");
    std::string stats = scalar(c, "SELECT r->'search' FROM (" + search + ") AS s(r)");
    std::printf("-- generated census: 1M rows, %s classes of (%s) at level 0\n", classes.c_str(), census_qi.c_str());
    compare(c, o, "search k=5 vs GROUP BY at level 0, 1M rows, 6 QIs", search,
            "SELECT count(*) FROM (SELECT count(*) FROM " + t + " GROUP BY " + census_qi + ") AS g", 0);
    std::printf("   %s\n", stats.c_str());
}

// The entropy aggregates against count(*) GROUP BY the same columns: the GROUP BY
// is the plain-SQL way to get the counts an entropy needs.
void bench_information(pqxx::connection& c, const Options& o) {
    std::string t = census_table(c, o, o.sizes.back());
    std::string n = std::to_string(o.sizes.back() / 1000000) + "M";
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"entropy(zip)", "zip"},
        {"entropy(ROW(age, sex, race, zip))", "age, sex, race, zip"},
        {"mutual_information(zip, occupation)", "zip, occupation"},
        {"mutual_information(ROW(age, sex, race, zip), occupation)", "age, sex, race, zip, occupation"}};
    for (const auto& [aggregate, columns] : cases) {
        std::string groups = scalar(c, "SELECT count(*) FROM (SELECT 1 FROM " + t + " GROUP BY " + columns + ") AS g");
        compare(c, o, aggregate + " vs GROUP BY (" + groups + " groups), " + n,
                "SELECT privrisk." + aggregate + " FROM " + t,
                "SELECT count(*) FROM (SELECT count(*) FROM " + t + " GROUP BY " + columns + ") AS g", 0.8);
    }
}

// dp_release (SafePub: sampling, generalization, class counting, suppression in
// one pass) against TABLESAMPLE BERNOULLI at the same rate followed by the same
// GROUP BY and the same suppression. Every run spends from a large budget.
void bench_dp(pqxx::connection& c, const Options& o) {
    std::string t = census_table(c, o, o.sizes.back());
    std::string n = std::to_string(o.sizes.back() / 1000000) + "M";
    {
        pqxx::nontransaction tx{c};
        age_zip_hierarchies(tx, "bench_dp", "5, 10, 20, 40, 160");
        tx.exec("SELECT privrisk.set_budget(" + tx.quote(t) + ", 1e9, 0.99)");
    }
    for (double epsilon : {1.0, 0.5}) {
        std::string e = epsilon == 1.0 ? "1" : "0.5";
        std::string beta = scalar(c, "SELECT beta FROM privrisk.dp_parameters(" + e + ", 1e-5)");
        std::string k = scalar(c, "SELECT k FROM privrisk.dp_parameters(" + e + ", 1e-5)");
        std::string release =
            "SELECT count(*), sum(n) FROM privrisk.dp_release('" + t +
            "', ARRAY['age', 'sex', 'zip'], ARRAY['bench_dp_age', NULL, 'bench_dp_zip'], " + e +
            ", 1e-5, levels => ARRAY[2, 0, 2], output => 'classes') AS r(age text, sex text, zip text, n bigint)";
        std::string sample =
            "SELECT count(*), sum(n) FROM (SELECT privrisk.gen(age, 'bench_dp_age', 2), sex, "
            "privrisk.gen(zip, 'bench_dp_zip', 2), count(*) AS n FROM " +
            t + " TABLESAMPLE BERNOULLI (100 * " + beta + ") GROUP BY 1, 2, 3 HAVING count(*) >= " + k + ") AS g";
        std::string native = "SELECT count(*), sum(n) FROM (SELECT age / 10, sex, left(zip, 3), count(*) AS n FROM " +
                             t + " TABLESAMPLE BERNOULLI (100 * " + beta +
                             ") GROUP BY 1, 2, 3 HAVING count(*) >= " + k + ") AS g";
        std::printf("-- epsilon %s, delta 1e-5: beta %s, k %s; released classes, rows: %s | sample + GROUP BY: %s\n",
                    e.c_str(), beta.c_str(), k.c_str(),
                    scalar(c, "SELECT count || ', ' || sum FROM (" + release + ") s").c_str(),
                    scalar(c, "SELECT count || ', ' || sum FROM (" + sample + ") s").c_str());
        compare(c, o, "dp_release eps=" + e + " vs BERNOULLI + GROUP BY gen(), " + n, release, sample, 0.8);
        compare(c, o, "dp_release eps=" + e + " vs BERNOULLI + GROUP BY age/10, left(zip,3), " + n, release, native, 0);
    }
}

// match_counts (one pass over each side, C++ hashing of distinct tuples) against
// the plain SQL that computes the same exact-match counts: GROUP BY both sides
// and a join.
void bench_identification(pqxx::connection& c, const Options& o) {
    std::string dictionary = census_table(c, o, o.sizes.back());
    std::string released = census_table(c, o, o.sizes.front());
    const std::string columns = "age, sex, race, zip";
    const std::string op = "SELECT count(*), sum(rows), sum(matches) FROM privrisk.match_counts('" + released + "', '" +
                           dictionary +
                           "', '[{\"released\": \"age\"}, {\"released\": \"sex\"}, "
                           "{\"released\": \"race\"}, {\"released\": \"zip\"}]')";
    const std::string baseline = "SELECT count(*), sum(r.rows), sum(coalesce(d.n, 0)) FROM (SELECT " + columns +
                                 ", count(*) AS rows FROM " + released + " GROUP BY " + columns +
                                 ") r LEFT JOIN (SELECT " + columns + ", count(*) AS n FROM " + dictionary +
                                 " GROUP BY " + columns + ") d USING (" + columns + ")";
    // Both answers as one text row, compared before anything is timed.
    std::string a = scalar(c, "SELECT s::text FROM (" + op + ") s");
    std::string b = scalar(c, "SELECT s::text FROM (" + baseline + ") s");
    std::printf("-- released distinct tuples, rows, total matches: match_counts %s | SQL %s\n", a.c_str(), b.c_str());
    if (a != b) throw std::runtime_error("match_counts and the SQL join disagree");
    compare(c, o,
            "match_counts " + std::to_string(o.sizes.front() / 1000000) + "M released vs " +
                std::to_string(o.sizes.back() / 1000000) + "M dictionary vs GROUP BY + join",
            op, baseline, o.sizes.back() >= 10000000 ? 0.4 : 0.8);
}

// scripts/bench scale: the same census table on this server (census_local) and
// hash-sharded by zip over three shard clusters (census_sharded, foreign partitions
// census_sharded_shard1 …), both prepared by scripts/bench. The shards share this
// machine's cores: the ratio measures the overhead of going through them, not a speed-up.
void bench_scale(pqxx::connection& c, const Options& o) {
    const std::string qi = "ARRAY['age', 'sex', 'race', 'zip']";
    auto audit = [&](const std::string& t) { return "SELECT privrisk.audit('" + t + "', " + qi + ", 'occupation')"; };
    std::string local = scalar(c, audit("census_local") + "::text"),
                sharded = scalar(c, audit("census_sharded") + "::text");
    if (local != sharded) throw std::runtime_error("audit() differs between the sharded and the local table");
    std::string rows = scalar(c, "SELECT count(*) FROM census_local");
    std::string classes = scalar(c, "SELECT count(*) FROM privrisk.classes('census_sharded', " + qi + ")");
    // What crosses the network: one class_tally row per shard, carrying that shard's classes
    // (counted on the shard); the hist() GROUP BY fallback moves the same classes as rows.
    std::string moved = scalar(
        c,
        "SELECT sum(n) FROM (SELECT (SELECT count(*) FROM (SELECT 1 FROM census_sharded_shard1 GROUP BY age, sex, "
        "race, zip) g) AS n "
        "UNION ALL SELECT (SELECT count(*) FROM (SELECT 1 FROM census_sharded_shard2 GROUP BY age, sex, race, zip) g) "
        "UNION ALL SELECT (SELECT count(*) FROM (SELECT 1 FROM census_sharded_shard3 GROUP BY age, sex, race, zip) g)) "
        "AS s");
    const double ratio = std::stod(moved) / std::stod(classes);
    std::printf(
        "-- %s rows over 3 shards hash-partitioned by zip: %s classes; audit() moves 3 rows (a class_tally "
        "per shard) carrying %s classes\n",
        rows.c_str(), classes.c_str(), moved.c_str());
    std::printf("%-62s %6.2fx  target <= 1.01x  %s\n", "classes moved / classes (audit over shards)", ratio,
                ratio <= 1.01 ? "met" : "NOT MET");
    compare(c, o, "audit() sharded (3 shards) vs the same table local (parallel)", audit("census_sharded"),
            audit("census_local"), 1.2);

    // search() and lattice() over shards roll up from each shard's level-0 classes; at 1M rows
    // (census_1m_sharded, partitioned by id, which no class key holds, and census_1m_local, the
    // first 1M rows), with the demo's hierarchies.
    const std::string hierarchies = "ARRAY['age', 'sex', 'race', 'zip']";
    auto search = [&](const std::string& t) {
        return "SELECT privrisk.search('" + t + "', " + qi + ", " + hierarchies + ", 'occupation', '{\"k\": 5}')";
    };
    auto lattice = [&](const std::string& t) {
        return "SELECT concat_ws(' ', count(*) FILTER (WHERE qualifies), md5(string_agg(concat_ws('|', node, "
               "qualifies, utility, rows_suppressed, measures), ',' ORDER BY node))) FROM privrisk.lattice('" +
               t + "', " + qi + ", " + hierarchies + ", 'occupation', '{\"k\": 5}')";
    };
    // The answers without the read's timings, workers and source name.
    auto answer = [&](const std::string& q) {
        return scalar(c, "SELECT (r - 'source') #- '{search}' FROM (" + q + ") AS s(r)");
    };
    if (answer(search("census_1m_sharded")) != answer(search("census_1m_local")))
        throw std::runtime_error("search() differs between the sharded and the local table");
    if (scalar(c, lattice("census_1m_sharded")) != scalar(c, lattice("census_1m_local")))
        throw std::runtime_error("lattice() differs between the sharded and the local table");
    compare(c, o, "search() sharded by id vs local, 1M rows", search("census_1m_sharded"), search("census_1m_local"),
            1.3);
    compare(c, o, "lattice() sharded by id vs local, 1M rows", lattice("census_1m_sharded"), lattice("census_1m_local"),
            1.3);
    // audit() where each class's rows are on every shard: the shards' tallies overlap, so the
    // coordinator merges about 1.7 times the classes (no target: the is at 10M rows above).
    if (scalar(c, audit("census_1m_sharded") + "::text") != scalar(c, audit("census_1m_local") + "::text"))
        throw std::runtime_error("audit() differs between the id-sharded and the local table");
    compare(c, o, "audit() sharded by id vs local (parallel), 1M rows", audit("census_1m_sharded"),
            audit("census_1m_local"), 0);

    // The analyst's own GROUP BY gen(…) (docs/scale-out.md): each shard sends its classes; at 1M rows.
    auto grouped = [&](const std::string& t) {
        return "SELECT concat_ws(' ', count(*), privrisk.k_anonymity(h)) FROM (SELECT privrisk.hist(occupation) AS h "
               "FROM " +
               t + " GROUP BY privrisk.gen(age, 'age', 1), sex, race, privrisk.gen(zip, 'zip', 2)) AS g";
    };
    if (scalar(c, grouped("census_1m_sharded")) != scalar(c, grouped("census_1m_local")))
        throw std::runtime_error("the analyst's GROUP BY differs between the sharded and the local table");
    compare(c, o, "the analyst's GROUP BY gen(...) sharded by id vs local, 1M rows", grouped("census_1m_sharded"),
            grouped("census_1m_local"), 0);
}

}  // namespace

int main(int argc, char** argv) {
    Options o;
    std::vector<std::string> only;
    for (int i = 1; i < argc; ++i) {
        std::string a = argv[i];
        if (a == "--rows" && i + 1 < argc) o.rows = std::stol(argv[++i]);
        else if (a == "--repeat" && i + 1 < argc) o.repeat = std::stoi(argv[++i]);
        else if (a == "--shared" && i + 1 < argc) o.shared = argv[++i];
        else if (a == "--root" && i + 1 < argc) o.root = argv[++i];
        else if (a == "--pgbench" && i + 1 < argc) o.pgbench = argv[++i];
        else if (a == "--sizes" && i + 1 < argc) {
            o.sizes.clear();
            std::stringstream list(argv[++i]);
            for (std::string item; std::getline(list, item, ',');) o.sizes.push_back(std::stol(item));
        } else if (a == "--help") {
            std::printf(
                "bench_driver [--rows N] [--sizes N,N] [--repeat R] [--shared DIR] [--root DIR] [--pgbench PATH] "
                "[generalize] [measures] [ck] [release] [suppression] [pseudonym] [search] [information] [dp] "
                "[identification] [scale] [release_index]\n");
            return 0;
        } else only.push_back(a);
    }
    try {
        pqxx::connection c{""};
        {
            pqxx::nontransaction tx{c};
            tx.exec("CREATE EXTENSION IF NOT EXISTS privrisk");
        }
        std::printf(
            "privrisk benchmarks: %ld rows, median of %d interleaved runs; ratio = privrisk / PostgreSQL baseline\n",
            o.rows, o.repeat);
        std::vector<std::pair<std::string, std::function<void(pqxx::connection&, const Options&)>>> all = {
            {"generalize", bench_generalize},
            {"measures", bench_measures},
            {"ck", bench_ck},
            {"release", bench_release},
            {"suppression", bench_suppression},
            {"pseudonym", bench_pseudonym},
            {"search", bench_search},
            {"information", bench_information},
            {"dp", bench_dp},
            {"identification", bench_identification}};
        for (auto& [name, fn] : all)
            if (only.empty() || std::find(only.begin(), only.end(), name) != only.end()) fn(c, o);
        // Only when asked: it needs the shards scripts/bench scale starts.
        if (std::find(only.begin(), only.end(), "scale") != only.end()) bench_scale(c, o);
        // Only when asked (scripts/bench release): it loads a table of its own, 10M rows by default.
        if (std::find(only.begin(), only.end(), "release_index") != only.end()) bench_release_index(c, o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "benchmark failed: %s\n", e.what());
        return 1;
    }
    return 0;
}
