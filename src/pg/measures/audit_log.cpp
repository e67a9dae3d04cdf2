// privrisk.audit_log's writer: the row is written as the log's owner, with who
// ran it and when taken from the session, not from the caller: nobody may insert
// rows by hand, so every row is a result privrisk computed, at the time it says,
// for the role it names. Its callers (record_audit.cpp, release_verdict.cpp) are
// in the release wing: they record a release view's trace.
#include "common/catalog_owner.hpp"
#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/spi.hpp"
#include "measures/audit_log.hpp"

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
    spi.run(traced
                ? "INSERT INTO privrisk.audit_log(audited_by, session_role, source, settings, result, release) "
                  "VALUES ($1::pg_catalog.name, $2::pg_catalog.name, $3, $4::pg_catalog.jsonb, $5::pg_catalog.jsonb, "
                  "$6::pg_catalog.jsonb)"
                : "INSERT INTO privrisk.audit_log(audited_by, session_role, source, settings, result) "
                  "VALUES ($1::pg_catalog.name, $2::pg_catalog.name, $3, $4::pg_catalog.jsonb, $5::pg_catalog.jsonb)",
            {text_arg(role), text_arg(session), text_arg(source), text_arg(settings), text_arg(result),
             release ? text_arg(*release) : SpiArg{TEXTOID, Datum(0), true}},
            false);
}

}  // namespace privrisk::pg
