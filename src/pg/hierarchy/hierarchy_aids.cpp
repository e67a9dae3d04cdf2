// hierarchy_coverage(source, column, hierarchy): the values of a column that a
// hierarchy lacks, with their row counts, before a search or a policy fails on
// the first one (docs/hierarchy.md, "Authoring aids").
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/source_columns.hpp"
#include "hierarchy/hierarchy_coverage.hpp"

using namespace privrisk;
using namespace privrisk::pg;

// hierarchy_coverage(source regclass, column text, hierarchy text)
//   RETURNS TABLE(value text, rows bigint, reason text)
PRIVRISK_FUNCTION(privrisk_hierarchy_coverage) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "hierarchy_coverage: source must not be NULL");
    SourceRelation source = source_relation(PG_GETARG_OID(0));
    std::string column_name(text_arg_view(fcinfo, 1, "column"));
    SourceColumn column = source_column(source, column_name, "hierarchy_coverage:");
    std::string hierarchy(text_arg_view(fcinfo, 2, "hierarchy"));
    std::vector<UncoveredValue> missing = uncovered_values(source, column, hierarchy);
    pg_call([&] { InitMaterializedSRF(fcinfo, 0); });
    auto* rsi = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    for (const UncoveredValue& m : missing) {
        Datum values[3] = {text_datum(m.value), Int64GetDatum(m.rows), text_datum(m.reason)};
        bool nulls[3] = {false, false, false};
        pg_call([&] { tuplestore_putvalues(rsi->setResult, rsi->setDesc, values, nulls); });
    }
    return Datum(0);
}
