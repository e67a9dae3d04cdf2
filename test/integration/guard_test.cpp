// The C++/PostgreSQL error boundary (issue 2 item 3): 10,000 calls whose core
// code throws deep inside, and 10,000 that hit a PostgreSQL error inside C++
// code, each a clean SQL error; the backend survives and its memory stays flat.
#include <gtest/gtest.h>

#include "server.hpp"

namespace {

struct Outcome {
    int errors = 0;
    std::string last_message, last_sqlstate;
};

Outcome call_many(pqxx::connection& c, const std::string& kind, int n) {
    Outcome o;
    for (int i = 0; i < n; ++i) {
        try {
            pqxx::nontransaction tx{c};
            tx.exec("SELECT privrisk.guard_selftest(" + tx.quote(kind) + ", 50)");
        } catch (const pqxx::sql_error& e) {
            ++o.errors;
            o.last_message = e.what();
            o.last_sqlstate = e.sqlstate();
        }
    }
    return o;
}

void expect_flat_memory(const std::string& kind, const std::string& sqlstate, const std::string& message) {
    itest::Database db("privrisk_guard");
    pqxx::connection c{db.conninfo()};
    int pid = itest::backend_pid(c);
    call_many(c, kind, 1000);  // warm up caches and allocator arenas
    long rss_before = itest::rss_kb(pid), ctx_before = itest::context_bytes(c);
    Outcome o = call_many(c, kind, 10000);
    long rss_after = itest::rss_kb(pid), ctx_after = itest::context_bytes(c);
    EXPECT_EQ(o.errors, 10000);
    EXPECT_EQ(o.last_sqlstate, sqlstate);
    EXPECT_NE(o.last_message.find(message), std::string::npos) << o.last_message;
    // The backend survived: same process, still answering.
    EXPECT_EQ(itest::backend_pid(c), pid);
    pqxx::nontransaction tx{c};
    EXPECT_EQ(tx.exec("SELECT privrisk.guard_selftest('ok', 3)")[0][0].as<long>(), 32);
    // Each call allocates 50 frames of 8 x 100-byte strings (~40 kB on the C++ heap);
    // a skipped destructor would leak ~400 MB over 10,000 calls.
    std::printf("[ memory   ] %s: backend RssAnon %ld kB -> %ld kB, contexts %ld -> %ld bytes over 10,000 errors\n",
                kind.c_str(), rss_before, rss_after, ctx_before, ctx_after);
    EXPECT_LT(rss_after - rss_before, 512) << "backend heap grew (a leak of 52 bytes per call would show)";
    EXPECT_LT(ctx_after - ctx_before, 64 * 1024) << "memory contexts grew";
}

}  // namespace

TEST(Guard, CoreExceptionsBecomeCleanErrorsWithoutLeaks) {
    expect_flat_memory("core", "22023", "selftest: thrown at the bottom of the descent");
}

TEST(Guard, PostgresErrorsInsideCppAreRethrownWithTheirSqlstate) {
    expect_flat_memory("postgres", "22P02", "invalid input syntax for type integer: \"not a number\"");
}

TEST(Guard, SucceedingCallsReturnTheirValue) {
    itest::Database db("privrisk_guard_ok");
    pqxx::connection c{db.conninfo()};
    pqxx::nontransaction tx{c};
    // 8 strings per frame, frames 0..10.
    EXPECT_EQ(tx.exec("SELECT privrisk.guard_selftest('ok', 10)")[0][0].as<long>(), 88);
}
