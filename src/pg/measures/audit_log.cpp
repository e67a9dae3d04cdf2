// record_audit: the only way into privrisk.audit_log. The audit runs with the
// caller's rights (it reads the caller's source); the row is written as the
// log's owner, with who ran it and when taken from the session, not from the
// caller: nobody may insert rows by hand, so every row is a result privrisk
// computed, at the time it says, for the role it names.
#include "common/error.hpp"
#include "common/guard.hpp"
#include "release/policy_catalog.hpp"
#include "common/spi.hpp"
#include "measures/audit_log.hpp"
#include "release/release_trace.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace privrisk::pg {

namespace {

bool release_trace_column() {
    return pg_call([] {
        Oid relid = get_relname_relid("audit_log", get_namespace_oid("privrisk", false));
        return OidIsValid(relid) && get_attnum(relid, "release") != InvalidAttrNumber;
    });
}

}  // namespace

void append_audit_log(Spi& spi, const std::string& source, const std::string& settings, const std::string& result,
                      const std::optional<std::string>& release) {
    const char* role = pg_call([] { return GetUserNameFromId(GetUserId(), false); });
    const char* session = pg_call([] { return GetUserNameFromId(GetSessionUserId(), false); });
    const bool traced = release_trace_column();  // before 0.15's update the log has no release column
    AsCatalogOwner owner;
    spi.run(traced ? "INSERT INTO privrisk.audit_log(audited_by, session_role, source, settings, result, release) "
                     "VALUES ($1::pg_catalog.name, $2::pg_catalog.name, $3, $4::pg_catalog.jsonb, $5::pg_catalog.jsonb, "
                     "$6::pg_catalog.jsonb)"
                   : "INSERT INTO privrisk.audit_log(audited_by, session_role, source, settings, result) "
                     "VALUES ($1::pg_catalog.name, $2::pg_catalog.name, $3, $4::pg_catalog.jsonb, $5::pg_catalog.jsonb)",
            {text_arg(role), text_arg(session), text_arg(source), text_arg(settings), text_arg(result),
             release ? text_arg(*release) : SpiArg{TEXTOID, Datum(0), true}},
            false);
}

}  // namespace privrisk::pg

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
    std::vector<SpiArg> args{procedure_arg(fcinfo, 0, REGCLASSOID),   procedure_arg(fcinfo, 1, TEXTARRAYOID),
                             procedure_arg(fcinfo, 2, TEXTOID),       procedure_arg(fcinfo, 3, TEXTARRAYOID),
                             procedure_arg(fcinfo, 4, INT4ARRAYOID), procedure_arg(fcinfo, 5, JSONBOID),
                             procedure_arg(fcinfo, 6, TEXTOID)};
    Spi spi;
    if (PG_NARGS() < 7) {  // a database not yet updated from 0.11: neither labels nor profiles
        spi.run("SELECT privrisk.audit($1, $2, $3, $4, $5, $6)::pg_catalog.text, "
                "pg_catalog.jsonb_build_object('quasi_identifiers', $2, 'sensitive', $3, 'hierarchies', $4, "
                "'levels', $5, 'options', $6)::pg_catalog.text, $1::pg_catalog.text",
                {args.begin(), args.begin() + 6}, false);
    } else {  // the settings record what was audited: the labels' columns where the call omitted them
        spi.run("SELECT privrisk.audit($1, a.quasi_identifiers, a.sensitive, a.hierarchies, $5, $6, $7)::pg_catalog.text, "
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
