// hierarchy_coverage(source, column, hierarchy): the values of a column that a
// hierarchy lacks, with their row counts, before a search or a policy fails on
// the first one (docs/hierarchy.md, "Authoring aids").
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/source_columns.hpp"
#include "common/spi.hpp"
#include "hierarchy/hierarchy_catalog.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

struct Missing {
    std::string value;
    int64 rows;
    std::string reason;
};

}  // namespace

// hierarchy_coverage(source regclass, column text, hierarchy text)
//   RETURNS TABLE(value text, rows bigint, reason text)
PRIVRISK_FUNCTION(privrisk_hierarchy_coverage) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "hierarchy_coverage: source must not be NULL");
    SourceRelation source = source_relation(PG_GETARG_OID(0));
    std::string column_name(text_arg_view(fcinfo, 1, "column"));
    SourceColumn column = source_column(source, column_name, "hierarchy_coverage:");
    std::string hierarchy(text_arg_view(fcinfo, 2, "hierarchy"));
    // As the caller: PostgreSQL checks the right to read the column.
    std::string sql = source_select(source, {"(" + column.quoted + ")::pg_catalog.text", "pg_catalog.count(*)"}) +
                      " WHERE " + column.quoted + " IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1";
    std::vector<Missing> values;
    Spi spi;
    uint64 n = spi.run(sql.c_str(), {}, true);
    for (uint64 r = 0; r < n; ++r) values.push_back({spi.string(r, 1), spi.int8(r, 2), {}});
    spi.finish();
    // Looked up after the query: a cache entry is only valid until the next catalog change is seen.
    const Hierarchy& h = cached_hierarchy(hierarchy);
    std::vector<Missing> missing;
    for (Missing& v : values) {
        try {
            int level = h.level_of(v.value);
            if (level > 0) v.reason = "a node of level " + std::to_string(level) + ", not a leaf";
        } catch (const Error& e) {
            v.reason = e.what();
        }
        if (!v.reason.empty()) missing.push_back(std::move(v));
    }
    pg_call([&] { InitMaterializedSRF(fcinfo, 0); });
    auto* rsi = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    for (const Missing& m : missing) {
        Datum values[3] = {text_datum(m.value), Int64GetDatum(m.rows), text_datum(m.reason)};
        bool nulls[3] = {false, false, false};
        pg_call([&] { tuplestore_putvalues(rsi->setResult, rsi->setDesc, values, nulls); });
    }
    return Datum(0);
}
