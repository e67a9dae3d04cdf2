// SPI from C++: every call goes through pg_call, values come back as C++ types.
// Queries are fixed strings with $n parameters; no user value is ever spliced.
//
// Every statement privrisk runs goes through this file (or stream_rows, which
// uses the same pin): it is parsed, planned and executed under
// search_path = pg_catalog, pg_temp, so no type, function or operator of the
// caller's schemas or of pg_temp can stand in for a built-in one, whatever
// role the statement runs as. Statements also name every object by schema;
// test/security/check_sql.py checks both rules mechanically.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/guard.hpp"

namespace privrisk::pg {

struct SpiArg {
    Oid type;
    Datum value;
    bool null;
};

SpiArg text_arg(std::string_view s);
SpiArg int4_arg(int v);
SpiArg oid_arg(Oid type, Oid v);  // regclass, regrole, …
// A one-dimensional array argument; nullopt elements are NULL.
SpiArg text_array_arg(const std::vector<std::optional<std::string_view>>& items);
SpiArg text_array_arg(const std::vector<std::string>& items);
SpiArg int4_array_arg(const std::vector<int>& items);
SpiArg int8_array_arg(const std::vector<long>& items);

// A connection to SPI for the duration of one C++ scope. On an exception the
// transaction aborts, and PostgreSQL's abort processing closes SPI.
// The search path every statement privrisk runs is parsed and executed under.
inline constexpr const char* kPinnedSearchPath = "pg_catalog, pg_temp";

// Runs fn() (PostgreSQL-style code: no C++ object with a destructor) with the
// pinned search path, restored afterwards, on an error too. Call inside pg_call.
void run_with_pinned_search_path(void (*fn)(void*), void* arg);

template <typename F>
void with_pinned_search_path(F&& f) {
    auto thunk = [](void* p) { (*static_cast<std::remove_reference_t<F>*>(p))(); };
    pg_call([&] { run_with_pinned_search_path(thunk, &f); });
}

class Spi {
public:
    Spi();
    ~Spi() = default;
    void finish();  // call on the success path

    // Runs `sql` and returns the number of rows processed.
    uint64 run(const char* sql, const std::vector<SpiArg>& args, bool read_only);

    bool null(uint64 row, int col) const;
    std::string string(uint64 row, int col) const;  // NULL is an error; check null() first
    long int8(uint64 row, int col) const;
    double float8(uint64 row, int col) const;
    std::vector<std::string> strings(uint64 row, int col) const;
    std::vector<long> int8_array(uint64 row, int col) const;

private:
    Datum value(uint64 row, int col) const;
    bool open_ = false;
};

// Runs fn() in a subtransaction. If it fails with `sqlstate` (an expected
// failure with a fallback, such as a memory limit), the subtransaction is
// rolled back, cleaning up what the error left, and the result is false; any
// other error rolls it back too and propagates. In parallel mode, where no
// subtransaction may start, fn() runs as it is: every error propagates.
bool in_subtransaction(int sqlstate, const std::function<void()>& fn);
// The same for every SQLSTATE `expected` accepts; `caught` gets the one that failed.
struct Caught {
    int sqlstate = 0;
    std::string message;
};
bool in_subtransaction(const std::function<bool(int)>& expected, const std::function<void()>& fn,
                       Caught* caught = nullptr);

}  // namespace privrisk::pg
