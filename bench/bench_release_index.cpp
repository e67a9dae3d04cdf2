// scripts/bench release (issue #35, "Release views at warehouse speed"): selective
// queries through a release view against the same queries on its source, in the
// same run. A patients table of --rows rows (primary key on id, an index on age); a
// policy releasing id as it is, age generalized to 5-year groups through a tree
// hierarchy (ARX's Adult age hierarchy), zip generalized through a prefix hierarchy,
// and the diagnosis hidden below age 30. The issue's targets: a point query by id
// <= 2x, pgbench point queries >= 0.5x the tps, a 1,000-row id range <= 2x, a join of
// 1,000 keys <= 2x, a label predicate read through the age index, full reads <= 1.10x; a point
// query through the same release with record suppression <= 10x the one without.
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <random>
#include <regex>
#include <stdexcept>
#include <string>
#include <vector>

#include "../test/common/read_file.hpp"
#include "bench_common.hpp"

namespace privrisk_bench {
namespace {

const char* kView = "bench_ri_view";
const char* kSuppressingView = "bench_ri_sup_view";
const char* kKeys = "bench_ri_keys";

// The source, made once per row count (loading 10M rows takes minutes) and kept.
std::string patients_table(pqxx::connection& c, long rows) {
    std::string t = "bench_patients_" + std::to_string(rows);
    if (scalar(c, "SELECT count(*) FROM pg_class WHERE relname = " + c.quote(t)) != "0") return t;
    pqxx::nontransaction tx{c};
    // Deterministic values from a hash of the id: ages 1-95, and 96-100 (ARX's group 95-99) in one row
    // of 1,000, so that one label is selective; 100 zips, 6 diagnoses.
    tx.exec("CREATE UNLOGGED TABLE " + t + " AS SELECT i AS id, CASE WHEN i % 1000 = 0 THEN 96 + abs(hashint4(i)) % 5 "
            "ELSE 1 + abs(hashint4(i)) % 95 END AS age, "
            "'479' || lpad((abs(hashint4(i + 7)) % 100)::text, 2, '0') AS zip, "
            "(ARRAY['flu', 'cold', 'asthma', 'diabetes', 'cancer', 'healthy'])[1 + abs(hashint4(i + 13)) % 6] AS diagnosis, "
            "CASE WHEN hashint4(i + 17) % 2 = 0 THEN 'F' ELSE 'M' END AS sex, "
            "(ARRAY['Married', 'Never-married', 'Divorced', 'Widowed'])[1 + abs(hashint4(i + 19)) % 4] AS marital_status "
            "FROM generate_series(1, " + std::to_string(rows) + ") AS i");
    tx.exec("ALTER TABLE " + t + " ADD PRIMARY KEY (id)");
    tx.exec("CREATE INDEX " + t + "_age ON " + t + " (age)");
    tx.exec("VACUUM ANALYZE " + t);
    return t;
}

void make_release(pqxx::connection& c, const Options& o, const std::string& t) {
    pqxx::nontransaction tx{c};
    tx.exec("DROP VIEW IF EXISTS " + std::string(kView));
    tx.exec("SELECT privrisk.drop_policy(name, true) FROM privrisk.policy WHERE base_name = 'bench_ri'");
    tx.exec("SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy WHERE name IN ('bench_ri_age', 'bench_ri_zip')");
    tx.exec_params("SELECT privrisk.load_hierarchy('bench_ri_age', $1)",
                   privrisk_test::read_file(o.shared + "/data/adult/adult_hierarchy_age.csv"));
    tx.exec("SELECT privrisk.prefix_hierarchy('bench_ri_zip', 5)");
    tx.exec("SELECT privrisk.create_policy('bench_ri', " + tx.quote(t) + ")");
    tx.exec("SELECT privrisk.add_rule('bench_ri', 'age', 'gen', 'false', 'bench_ri_age', 1)");
    tx.exec("SELECT privrisk.add_rule('bench_ri', 'zip', 'gen', 'false', 'bench_ri_zip', 2)");
    tx.exec("SELECT privrisk.add_rule('bench_ri', 'diagnosis', 'hide', 'age >= 30')");
    tx.exec("SET client_min_messages = warning");
    tx.exec("SELECT privrisk.create_release_view('bench_ri', " + tx.quote(kView) + ")");
    tx.exec("RESET client_min_messages");
    // The same release with record suppression: classes of (age group, sex, marital status), k = 10,
    // and an index on those columns through which a selective read counts its rows' classes.
    tx.exec("DROP VIEW IF EXISTS " + std::string(kSuppressingView));
    tx.exec("SELECT privrisk.drop_policy(name, true) FROM privrisk.policy WHERE base_name = 'bench_ri_sup'");
    tx.exec("SELECT privrisk.create_policy('bench_ri_sup', " + tx.quote(t) + ")");
    tx.exec("SELECT privrisk.add_rule('bench_ri_sup', 'age', 'gen', 'false', 'bench_ri_age', 1)");
    tx.exec("SELECT privrisk.add_rule('bench_ri_sup', 'zip', 'gen', 'false', 'bench_ri_zip', 2)");
    tx.exec("SELECT privrisk.add_rule('bench_ri_sup', 'diagnosis', 'hide', 'age >= 30')");
    tx.exec("SELECT privrisk.set_suppression('bench_ri_sup', ARRAY['age', 'sex', 'marital_status'], "
            "'{\"k\": 10, \"max_suppression\": 0.01}')");
    tx.exec("SET client_min_messages = warning");
    tx.exec("SELECT privrisk.create_release_view('bench_ri_sup', " + tx.quote(kSuppressingView) + ")");
    tx.exec("RESET client_min_messages");
    tx.exec("CREATE INDEX IF NOT EXISTS " + t + "_classes ON " + t + " (age, sex, marital_status)");
    tx.exec("DROP TABLE IF EXISTS " + std::string(kKeys));
    tx.exec("CREATE TABLE " + std::string(kKeys) + " AS SELECT 1 + abs(hashint4(i + 23)) % " + std::to_string(o.rows) +
            " AS k FROM generate_series(1, 1000) AS i");
    tx.exec("ANALYZE " + std::string(kKeys));
}

// Times op(i) against baseline(i), interleaved, over `runs` runs. Callers give the
// two different keys from the same random sequence: with the same key, the
// second query reads the pages the first just brought in, and its median is of
// warm reads only.
void compare_runs(pqxx::connection& c, const std::string& label, const std::function<std::string(int)>& op,
                  const std::function<std::string(int)>& baseline, int runs, double target) {
    run_ms(c, op(0));
    run_ms(c, baseline(0));
    std::vector<double> a, b;
    for (int i = 1; i <= runs; ++i) {
        a.push_back(run_ms(c, op(i)));
        b.push_back(run_ms(c, baseline(i)));
    }
    print_ratio(label, median(a), median(b), target);
}

// pgbench's tps for `sql` (with :id a random id), 8 clients on 2 threads.
double pgbench_tps(const std::string& pgbench, const std::string& sql, long rows, int seconds) {
    char script[] = "/tmp/privrisk_bench_ri_XXXXXX";
    int fd = mkstemp(script);
    if (fd < 0) throw std::runtime_error("cannot create pgbench's script");
    std::string body = "\\set id random(1, " + std::to_string(rows) + ")\n" + sql + "\n";
    if (write(fd, body.data(), body.size()) != static_cast<ssize_t>(body.size())) throw std::runtime_error("write");
    close(fd);
    std::string cmd = pgbench + " -n -c 8 -j 2 -T " + std::to_string(seconds) + " -f " + script + " 2>&1";
    FILE* p = popen(cmd.c_str(), "r");
    if (!p) throw std::runtime_error("cannot run " + pgbench);
    std::string out;
    char buf[4096];
    while (fgets(buf, sizeof buf, p)) out += buf;
    int status = pclose(p);
    unlink(script);
    std::smatch m;
    if (status != 0 || !std::regex_search(out, m, std::regex(R"(tps = ([0-9.]+))")))
        throw std::runtime_error("pgbench failed:\n" + out);
    return std::stod(m[1]);
}

std::string explain_analyze(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    std::string plan;
    for (auto row : tx.exec("EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF) " + sql)) plan += std::string(row[0].c_str()) + "\n";
    return plan;
}

std::string explain(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    std::string plan;
    for (auto row : tx.exec("EXPLAIN " + sql)) plan += std::string(row[0].c_str()) + "\n";
    return plan;
}

// Whether this build has the index paths' switch (privrisk.release_index_scans).
bool has_index_switch(pqxx::connection& c) {
    return scalar(c, "SELECT current_setting('privrisk.release_index_scans', true) IS NOT NULL") == "t";
}

}  // namespace

void bench_release_index(pqxx::connection& c, const Options& o) {
    const long rows = o.rows;
    std::string t = patients_table(c, rows);
    make_release(c, o, t);
    const std::string v = kView, n = rows >= 1000000 ? std::to_string(rows / 1000000) + "M" : std::to_string(rows / 1000) + "k";
    std::mt19937 rng(35);
    std::vector<long> ids;
    for (int i = 0; i < 1000; ++i) ids.push_back(1 + static_cast<long>(rng() % rows));
    auto id = [&](int i) { return std::to_string(ids[i % ids.size()]); };
    auto lo = [&](int i) { return ids[i % ids.size()] % std::max(1L, rows - 1000); };
    const bool switchable = has_index_switch(c);
    std::printf("-- %s patients, primary key on id, index on age; id as it is, age generalized to 5-year groups "
                "(tree hierarchy), zip by prefix, diagnosis hidden below age 30; privrisk.release_index_scans %s\n",
                n.c_str(), switchable ? "on (the default)" : "not in this build (every release reads the whole source)");

    // Same rows both ways before anything is timed: the view's id, diagnosis and age group of one key.
    std::string check_view = scalar(c, "SELECT id || ' ' || age || ' ' || coalesce(diagnosis, '-') FROM " + v + " WHERE id = " + id(1));
    std::string check_src = scalar(c, "SELECT id || ' ' || privrisk.generalize('bench_ri_age', age::text, 1) || ' ' || "
                                      "CASE WHEN age >= 30 THEN diagnosis ELSE '-' END FROM " + t + " WHERE id = " + id(1));
    if (check_view != check_src) throw std::runtime_error("the release and the source disagree: " + check_view + " vs " + check_src);

    const int points = std::max(o.repeat, 1) * 40;
    compare_runs(c, "point query by id (median of " + std::to_string(points) + "), " + n,
                 [&](int i) { return "SELECT * FROM " + v + " WHERE id = " + id(2 * i); },
                 [&](int i) { return "SELECT * FROM " + t + " WHERE id = " + id(2 * i + 1); }, points, 2.0);
    compare_runs(c, "1,000-row id range, " + n,
                 [&](int i) { return "SELECT * FROM " + v + " WHERE id BETWEEN " + std::to_string(lo(2 * i)) + " AND " + std::to_string(lo(2 * i) + 999); },
                 [&](int i) { return "SELECT * FROM " + t + " WHERE id BETWEEN " + std::to_string(lo(2 * i + 1)) + " AND " + std::to_string(lo(2 * i + 1) + 999); },
                 std::max(o.repeat, 1) * 4, 2.0);
    compare(c, o, "join of 1,000 keys (keys table JOIN view ON id), " + n,
            "SELECT v.* FROM " + std::string(kKeys) + " k JOIN " + v + " v ON v.id = k.k",
            "SELECT s.* FROM " + std::string(kKeys) + " k JOIN " + t + " s ON s.id = k.k", 2.0);

    // pgbench: 8 clients of point queries by random id, the view's tps over the source's.
    const int seconds = rows >= 1000000 ? 20 : 10;
    double tv = pgbench_tps(o.pgbench, "SELECT * FROM " + v + " WHERE id = :id;", rows, seconds);
    double ts = pgbench_tps(o.pgbench, "SELECT * FROM " + t + " WHERE id = :id;", rows, seconds);
    std::printf("%-62s %6.2fx  (%8.0f tps vs %8.0f tps)  target >= 0.50x  %s\n",
                ("pgbench -c 8 -j 2, point queries by random id, " + n).c_str(), tv / ts, tv, ts, tv / ts >= 0.5 ? "met" : "NOT MET");
    std::fflush(stdout);

    // A predicate on a generalized label: the age group's leaves read through the age index.
    const std::string label = "SELECT * FROM " + v + " WHERE age = '95-99'";
    std::string plan = explain(c, label);
    std::smatch m;
    bool uses = std::regex_search(plan, m, std::regex("Source Index: ([^\\n]+)")) && m[1].str().find("_age") != std::string::npos;
    std::printf("%-62s %s  target: uses the age index  %s\n", ("WHERE age = '95-99' (a label, 0.1% of rows), " + n).c_str(),
                uses ? ("reads " + m[1].str()).c_str() : "reads the whole source", uses ? "met" : "NOT MET");
    compare(c, o, "  the same vs WHERE age BETWEEN 96 AND 100 on the source, " + n, label,
            "SELECT * FROM " + t + " WHERE age BETWEEN 96 AND 100", 0);

    compare(c, o, "count(*) through the release vs the source, " + n, "SELECT count(*) FROM " + v,
            "SELECT count(*) FROM " + t, 1.10);
    compare(c, o, "full read (COPY TO /dev/null) vs the source, " + n, "COPY (SELECT * FROM " + v + ") TO '/dev/null'",
            "COPY (SELECT * FROM " + t + ") TO '/dev/null'", 1.10);

    // A suppressing release: a point query decides its row's class through the classes' index.
    const std::string sv = kSuppressingView;
    std::string splan = explain_analyze(c, "SELECT * FROM " + sv + " WHERE id = " + id(3));
    bool by_class = std::regex_search(splan, m, std::regex("Suppression Class Index: ([^\\n]+)"));
    std::printf("%-62s %s\n", ("suppressing release (k = 10), point query by id, " + n).c_str(),
                by_class ? ("decides by class through " + m[1].str()).c_str() : "counts the whole source");
    compare_runs(c, "  vs the same release without suppression (median of " + std::to_string(points) + "), " + n,
                 [&](int i) { return "SELECT * FROM " + sv + " WHERE id = " + id(2 * i); },
                 [&](int i) { return "SELECT * FROM " + v + " WHERE id = " + id(2 * i + 1); }, points, 10.0);

    // Before the index paths: the same point query reading the whole source.
    if (switchable) {
        compare(c, o, "  (context) point query with release_index_scans off, " + n,
                "SET privrisk.release_index_scans = off; SELECT * FROM " + v + " WHERE id = " + id(2) +
                    "; RESET privrisk.release_index_scans",
                "SELECT * FROM " + t + " WHERE id = " + id(2), 0);
    }
}

}  // namespace privrisk_bench
