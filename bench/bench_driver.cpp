// Benchmark driver: each operation is timed against the PostgreSQL baseline
// that bounds it, in the same run, and printed as a ratio (absolute times on
// shared machines mean little). Runs the pairs interleaved and takes medians.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <pqxx/pqxx>
#include <sstream>
#include <string>
#include <vector>

namespace {

struct Options {
    long rows = 1000000;
    int repeat = 5;
    std::string shared = "../shared";
};

double run_ms(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    auto t0 = std::chrono::steady_clock::now();
    tx.exec(sql);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

std::string scalar(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    auto r = tx.exec(sql);
    return r[0][0].is_null() ? "NULL" : r[0][0].as<std::string>();
}

std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Times `op` against `baseline` (same result checked first by `check`).
void compare(pqxx::connection& c, const Options& o, const std::string& label, const std::string& op,
             const std::string& baseline, double target) {
    run_ms(c, op);  // warm caches
    run_ms(c, baseline);
    std::vector<double> a, b;
    for (int i = 0; i < o.repeat; ++i) {
        a.push_back(run_ms(c, op));
        b.push_back(run_ms(c, baseline));
    }
    double ma = median(a), mb = median(b), ratio = ma / mb;
    std::printf("%-58s %6.2fx  (%8.1f ms vs %8.1f ms)  target <= %.2fx  %s\n", label.c_str(), ratio, ma, mb, target,
                ratio <= target ? "met" : "NOT MET");
    std::fflush(stdout);
}

void bench_generalize(pqxx::connection& c, const Options& o) {
    {
        pqxx::nontransaction tx{c};
        tx.exec("SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy WHERE name = 'bench_age'");
        tx.exec_params("SELECT privrisk.load_hierarchy('bench_age', $1)",
                       read_file(o.shared + "/data/adult/adult_hierarchy_age.csv"));
        tx.exec("DROP TABLE IF EXISTS bench_people, bench_age_lookup");
        tx.exec("SELECT setseed(0.5)");
        tx.exec("CREATE TABLE bench_people AS SELECT i AS id, (1 + floor(random() * 100))::int AS age "
                "FROM generate_series(1, " + std::to_string(o.rows) + ") AS i");
        // The plain-SQL alternative: a (value, level, generalized) lookup table joined in.
        tx.exec("CREATE TABLE bench_age_lookup AS SELECT l.path[1] AS value, lv AS level, "
                "privrisk.generalize('bench_age', l.path[1], lv) AS generalized "
                "FROM privrisk.hierarchy_leaf l, generate_series(0, 4) AS lv WHERE l.hierarchy = 'bench_age'");
        tx.exec("CREATE INDEX ON bench_age_lookup (value, level)");
        tx.exec("VACUUM ANALYZE bench_people");
        tx.exec("ANALYZE bench_age_lookup");
    }
    const std::string op = "SELECT count(privrisk.generalize('bench_age', age::text, 2)) FROM bench_people";
    const std::string join = "SELECT count(l.generalized) FROM bench_people p JOIN bench_age_lookup l "
                             "ON l.value = p.age::text AND l.level = 2";
    // Same answer both ways, row by row, before anything is timed.
    std::string check_op = scalar(c, "SELECT md5(string_agg(privrisk.generalize('bench_age', age::text, 2), ',' ORDER BY id)) FROM bench_people");
    std::string check_join = scalar(c, "SELECT md5(string_agg(l.generalized, ',' ORDER BY p.id)) FROM bench_people p "
                                       "JOIN bench_age_lookup l ON l.value = p.age::text AND l.level = 2");
    if (check_op != check_join) throw std::runtime_error("generalize and the lookup join disagree");
    std::string n = std::to_string(o.rows / 1000000) + "M";
    compare(c, o, "generalize(age, level 2), " + n + " rows vs lookup-table join", op, join, 1.0);
    compare(c, o, "gen(int, level 2), " + n + " rows vs lookup-table join",
            "SELECT count(privrisk.gen(age, 'bench_age', 2)) FROM bench_people", join, 1.0);
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
        else if (a == "--help") {
            std::printf("bench_driver [--rows N] [--repeat R] [--shared DIR] [generalize]\n");
            return 0;
        } else only.push_back(a);
    }
    try {
        pqxx::connection c{""};
        {
            pqxx::nontransaction tx{c};
            tx.exec("CREATE EXTENSION IF NOT EXISTS privrisk");
        }
        std::printf("privrisk benchmarks: %ld rows, median of %d interleaved runs; ratio = privrisk / PostgreSQL baseline\n",
                    o.rows, o.repeat);
        std::vector<std::pair<std::string, std::function<void(pqxx::connection&, const Options&)>>> all = {
            {"generalize", bench_generalize}};
        for (auto& [name, fn] : all)
            if (only.empty() || std::find(only.begin(), only.end(), name) != only.end()) fn(c, o);
    } catch (const std::exception& e) {
        std::fprintf(stderr, "benchmark failed: %s\n", e.what());
        return 1;
    }
    return 0;
}
