// privrisk.hist's binary receive function, driven through libpq's binary
// parameters: valid values round-trip; random corruptions are refused with a
// clear error (or happen to be valid), and the backend never crashes.
#include <gtest/gtest.h>
#include <libpq-fe.h>

#include <random>
#include <string>

#include "server.hpp"

namespace {

struct Connection {
    explicit Connection(const std::string& conninfo) : conn(PQconnectdb(conninfo.c_str())) {}
    ~Connection() { PQfinish(conn); }
    PGconn* conn;
};

struct Result {
    explicit Result(PGresult* r) : res(r) {}
    ~Result() { PQclear(res); }
    PGresult* res;
};

}  // namespace

TEST(HistBinary, RoundTripAndCorruption) {
    itest::Database db("privrisk_hist_binary");
    Connection c(db.conninfo());
    ASSERT_EQ(PQstatus(c.conn), CONNECTION_OK);
    Result oid(PQexec(c.conn, "SELECT 'privrisk.hist'::regtype::oid, pg_backend_pid()"));
    ASSERT_EQ(PQresultStatus(oid.res), PGRES_TUPLES_OK);
    Oid hist_oid = static_cast<Oid>(std::stoul(PQgetvalue(oid.res, 0, 0)));
    std::string pid = PQgetvalue(oid.res, 0, 1);

    // The binary form of a value, as the server sends it.
    Result sent(PQexecParams(c.conn, "SELECT '[[\"a\", 1], [\"bc\", 2], [null, 3]]'::privrisk.hist", 0, nullptr,
                             nullptr, nullptr, nullptr, 1));
    ASSERT_EQ(PQresultStatus(sent.res), PGRES_TUPLES_OK);
    std::string good(PQgetvalue(sent.res, 0, 0), PQgetlength(sent.res, 0, 0));

    auto receive = [&](const std::string& bytes, std::string* text, std::string* error) {
        const char* values[] = {bytes.data()};
        int lengths[] = {static_cast<int>(bytes.size())};
        int formats[] = {1};
        Oid types[] = {hist_oid};
        Result r(PQexecParams(c.conn, "SELECT $1::text", 1, types, values, lengths, formats, 0));
        if (PQresultStatus(r.res) == PGRES_TUPLES_OK) {
            *text = PQgetvalue(r.res, 0, 0);
            return true;
        }
        *error = PQresultErrorMessage(r.res);
        return false;
    };
    std::string text, error;
    ASSERT_TRUE(receive(good, &text, &error)) << error;
    EXPECT_EQ(text, "[[\"a\", 1], [\"bc\", 2], [null, 3]]");

    std::mt19937 rng(41);
    int refused = 0, accepted = 0;
    for (int i = 0; i < 3000; ++i) {
        std::string bytes = good;
        for (int f = 0, n = 1 + rng() % 3; f < n; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
        if (rng() % 5 == 0) bytes.resize(rng() % bytes.size());
        if (receive(bytes, &text, &error)) {
            ++accepted;
            EXPECT_EQ(text.front(), '[');
        } else {
            ++refused;
            EXPECT_NE(error.find("invalid hist"), std::string::npos) << error;
        }
    }
    EXPECT_GT(refused, 2000);
    Result still(PQexec(c.conn, "SELECT pg_backend_pid()"));
    ASSERT_EQ(PQresultStatus(still.res), PGRES_TUPLES_OK);
    EXPECT_EQ(pid, PQgetvalue(still.res, 0, 0)) << "the backend restarted";
    std::printf("[ fuzz     ] hist_recv: %d corruptions refused, %d happened to be valid\n", refused, accepted);
}
