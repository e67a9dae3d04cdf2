// record_audit: the only way into privrisk.audit_log (measures/audit_log.hpp).
// The audit runs with the caller's rights (it reads the caller's source); the
// row records, for a release view, what it is a release of (release_trace.hpp),
// which is why this entry point lives with releases.
#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/spi.hpp"
#include "measures/audit_log.hpp"
#include "release/release_trace.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

SpiArg procedure_arg(FunctionCallInfo fcinfo, int i, Oid type) {
    bool null = i >= PG_NARGS() || PG_ARGISNULL(i);  // 0.11's record_audit had no profile
    return SpiArg{type, null ? Datum(0) : PG_GETARG_DATUM(i), null};
}

}  // namespace

// record_audit(source regclass, quasi_identifiers text[], sensitive text, hierarchies text[], levels int[],
//              options jsonb, profile text)
PRIVRISK_FUNCTION(privrisk_record_audit) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "record_audit: source must not be NULL");
    std::vector<SpiArg> args{procedure_arg(fcinfo, 0, REGCLASSOID),  procedure_arg(fcinfo, 1, TEXTARRAYOID),
                             procedure_arg(fcinfo, 2, TEXTOID),      procedure_arg(fcinfo, 3, TEXTARRAYOID),
                             procedure_arg(fcinfo, 4, INT4ARRAYOID), procedure_arg(fcinfo, 5, JSONBOID),
                             procedure_arg(fcinfo, 6, TEXTOID)};
    Spi spi;
    if (PG_NARGS() < 7) {  // a database not yet updated from 0.11: neither labels nor profiles
        spi.run(
            "SELECT privrisk.audit($1, $2, $3, $4, $5, $6)::pg_catalog.text, "
            "pg_catalog.jsonb_build_object('quasi_identifiers', $2, 'sensitive', $3, 'hierarchies', $4, "
            "'levels', $5, 'options', $6)::pg_catalog.text, $1::pg_catalog.text",
            {args.begin(), args.begin() + 6}, false);
    } else {  // the settings record what was audited: the labels' columns where the call omitted them
        spi.run(
            "SELECT privrisk.audit($1, a.quasi_identifiers, a.sensitive, a.hierarchies, $5, $6, $7)::pg_catalog.text, "
            "(pg_catalog.jsonb_build_object('quasi_identifiers', a.quasi_identifiers, 'sensitive', a.sensitive, "
            "'hierarchies', a.hierarchies, 'levels', $5, 'options', $6) OPERATOR(pg_catalog.||) "
            "CASE WHEN $7 IS NULL THEN '{}'::pg_catalog.jsonb ELSE pg_catalog.jsonb_build_object('profile', $7) END)"
            "::pg_catalog.text, $1::pg_catalog.text "
            "FROM privrisk.labelled_arguments($1, $2, $4, $3, 'record_audit') AS a",
            args, false);
    }
    std::string result = spi.string(0, 1), settings = spi.string(0, 2), source = spi.string(0, 3);
    append_audit_log(spi, source, settings, result, release_trace(PG_GETARG_OID(0)));
    spi.finish();
    PG_RETURN_VOID();
}
