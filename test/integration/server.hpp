// Helpers for integration tests against the throwaway cluster that scripts/test
// starts (PGHOST/PGPORT/PGUSER in the environment).
#pragma once

#include <cstdio>

#include <pqxx/pqxx>
#include <string>

#include "../common/proc_status.hpp"

namespace itest {

// A fresh database with the extension (CREATE EXTENSION privrisk followed by
// `extension_options`, e.g. "VERSION '0.8'"), dropped again by the destructor.
class Database {
public:
    explicit Database(const std::string& name, const std::string& options = "",
                      const std::string& extension_options = "")
        : name_(name) {
        pqxx::connection admin{"dbname=postgres"};
        pqxx::nontransaction tx{admin};
        tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(name_));
        tx.exec("CREATE DATABASE " + tx.quote_name(name_) + " " + options);
        pqxx::connection c{conninfo()};
        pqxx::nontransaction t{c};
        t.exec("CREATE EXTENSION privrisk " + extension_options);
    }
    ~Database() {
        try {
            pqxx::connection admin{"dbname=postgres"};
            pqxx::nontransaction tx{admin};
            tx.exec("DROP DATABASE IF EXISTS " + tx.quote_name(name_) + " WITH (FORCE)");
        } catch (...) {
        }
    }
    std::string conninfo() const { return "dbname=" + name_; }
    const std::string& name() const { return name_; }

private:
    std::string name_;
};

// Runs one statement outside a transaction block.
inline void exec(pqxx::connection& c, const std::string& sql) {
    pqxx::nontransaction tx{c};
    tx.exec(sql);
}

// Private anonymous memory (the heap: palloc and the C++ allocator) of a backend, in kB.
// Shared buffers do not count.
inline long rss_kb(int pid) { return privrisk_test::proc_status_kb(pid, "RssAnon"); }

inline int backend_pid(pqxx::connection& c) {
    pqxx::nontransaction tx{c};
    return tx.exec("SELECT pg_backend_pid()")[0][0].as<int>();
}

// Sum of the backend's memory contexts, in bytes (PostgreSQL's own accounting).
inline long context_bytes(pqxx::connection& c) {
    pqxx::nontransaction tx{c};
    return tx.exec("SELECT sum(total_bytes)::bigint FROM pg_backend_memory_contexts")[0][0].as<long>();
}

// The server's programs (pg_dump, pg_restore, psql): pg_config's bindir.
inline std::string pg_bindir() {
    FILE* p = popen("pg_config --bindir", "r");
    char buf[512] = {0};
    std::string dir = p && fgets(buf, sizeof buf, p) ? std::string(buf) : std::string();
    if (p) pclose(p);
    while (!dir.empty() && (dir.back() == '\n' || dir.back() == '\r')) dir.pop_back();
    return dir;
}

}  // namespace itest
