// What the benchmark driver's suites share (bench/*.cpp): the options, and the
// timing of an operation against its PostgreSQL baseline, printed as a ratio.
#pragma once
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <pqxx/pqxx>
#include <string>
#include <vector>

namespace privrisk_bench {

struct Options {
    long rows = 1000000;                     // for the generalize suite
    std::vector<long> sizes = {1000000, 10000000};  // census tables for the measures suite
    int repeat = 5;
    std::string shared = "../shared";
    std::string root = ".";                 // the repository, for demo/generate.sql
    std::string pgbench = "pgbench";        // for the release index suite
};

inline double run_ms(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    auto t0 = std::chrono::steady_clock::now();
    tx.exec(sql);
    return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

inline double median(std::vector<double> v) {
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
}

inline std::string scalar(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    auto r = tx.exec(sql);
    return r[0][0].is_null() ? "NULL" : r[0][0].as<std::string>();
}

// Prints one line: label, ratio, both times, and whether the ratio meets an upper target (<= 0: no target).
inline void print_ratio(const std::string& label, double ma, double mb, double target) {
    double ratio = ma / mb;
    std::printf("%-62s %6.2fx  (%8.1f ms vs %8.1f ms)", label.c_str(), ratio, ma, mb);
    if (target > 0)
        std::printf("  target <= %.2fx  %s\n", target, ratio <= target ? "met" : "NOT MET");
    else
        std::printf("  (no target)\n");
    std::fflush(stdout);
}

// Times `op` against `baseline`, interleaved; a target <= 0 means the ratio is only informative.
inline void compare(pqxx::connection& c, const Options& o, const std::string& label, const std::string& op,
                    const std::string& baseline, double target) {
    run_ms(c, op);  // warm caches
    run_ms(c, baseline);
    std::vector<double> a, b;
    for (int i = 0; i < o.repeat; ++i) {
        a.push_back(run_ms(c, op));
        b.push_back(run_ms(c, baseline));
    }
    print_ratio(label, median(a), median(b), target);
}

// The suite of scripts/bench release (bench/bench_release_index.cpp).
void bench_release_index(pqxx::connection& c, const Options& o);

}  // namespace privrisk_bench
