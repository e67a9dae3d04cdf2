// privrisk.guard_selftest: proves both guards (issue 2 item 3). 'core' throws
// from deep inside core code; 'postgres' hits a PostgreSQL ERROR while C++
// objects are alive; 'ok' returns normally.
#include <vector>

#include "common/args.hpp"
#include "common/error.hpp"
#include "common/selftest.hpp"

using namespace privrisk;
using namespace privrisk::pg;

PRIVRISK_FUNCTION(privrisk_guard_selftest) {
    std::string kind(text_arg_view(fcinfo, 0, "kind"));
    int depth = int4_arg_value(fcinfo, 1, "depth");
    if (depth < 0 || depth > 10000) fail(ErrorKind::InvalidParameter, "depth must be between 0 and 10000");
    if (kind == "ok") PG_RETURN_INT64(selftest_descend(depth, false));
    if (kind == "core") PG_RETURN_INT64(selftest_descend(depth, true));
    if (kind == "postgres") {
        std::vector<std::string> alive(depth, std::string(100, 'y'));  // must be freed by unwinding
        Datum bad = pg_call([] { return DirectFunctionCall1(int4in, CStringGetDatum("not a number")); });
        PG_RETURN_INT64(static_cast<long>(alive.size()) + DatumGetInt32(bad));
    }
    fail(ErrorKind::InvalidParameter, "kind must be 'ok', 'core' or 'postgres', got " + quote_value(kind));
}
