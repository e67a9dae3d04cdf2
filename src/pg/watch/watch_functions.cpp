// watch, unwatch, recheck_view (docs/watch.md). The steward (owner of the view
// and of its policy's source) registers a release view with a risk profile; a
// recheck audits the view with the caller's rights through record_audit (so
// the verdict is in the audit log like any other), then records it in the
// watch catalog as the catalog's owner: nobody writes a verdict by hand.
#include <optional>
#include <string>

#include "common/catalog_owner.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/spi.hpp"
#include "release/policy_access.hpp"
#include "release/policy_catalog.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

constexpr const char* kChannel = "privrisk_watch";

std::string relation_text(Oid relid) {
    Spi spi;
    spi.run("SELECT $1::pg_catalog.regclass::pg_catalog.text", {oid_arg(REGCLASSOID, relid)}, true);
    std::string name = spi.string(0, 1);
    spi.finish();
    return name;
}

Oid view_arg(FunctionCallInfo fcinfo, const char* function) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, std::string(function) + ": view must not be NULL");
    return PG_GETARG_OID(0);
}

// The source of the policy `view` is registered for, after checking that the
// caller owns the view and that source: the steward's rights, checked before
// anything of the catalog is used.
Oid require_steward(Oid view, const char* action) {
    bool exists = pg_call([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(view)); });
    if (!exists) fail(ErrorKind::UndefinedObject, "relation " + std::to_string(view) + " does not exist");
    bool owner = pg_call([&] { return pg_class_ownercheck(view, GetUserId()); });
    std::string name = relation_text(view);
    if (!owner) fail(ErrorKind::PermissionDenied, "must be owner of view " + quote_value(name) + " to " + action);
    std::optional<std::string> policy = policy_of_view(view);
    if (!policy)
        fail(ErrorKind::InvalidParameter,
             "relation " + quote_value(name) + " is not a release view (one made by privrisk.create_release_view)");
    Oid source = load_owned_policy(*policy).source;  // the same error for a stranger's policy as for none
    require_source_owner(source, action);
    return source;
}

// The watch of `view`, locked against a concurrent recheck or unwatch.
struct Watch {
    std::string view;
    std::string profile;
    std::optional<bool> passed;
};

std::optional<Watch> lock_watch(Oid view) {
    AsCatalogOwner owner;
    Spi spi;
    std::optional<Watch> watch;
    if (spi.run("SELECT view::pg_catalog.text, profile, passed::pg_catalog.int4 FROM privrisk.watched_view "
                "WHERE view OPERATOR(pg_catalog.=) $1 FOR UPDATE",
                {oid_arg(REGCLASSOID, view)}, false) > 0) {
        watch = Watch{spi.string(0, 1), spi.string(0, 2), std::nullopt};
        if (!spi.null(0, 3)) watch->passed = spi.int8(0, 3) != 0;
    }
    spi.finish();
    return watch;
}

struct Verdict {
    bool passed = false;
    std::string failed = "[]";  // jsonb text
    std::string summary;
    std::optional<long> audit_id;
};

// Audits the view against the profile as the caller, through record_audit (the
// audit log's only door), and reads back the row it wrote: this session's last
// id of the log's sequence.
Verdict audit_view(Oid view, const std::string& profile) {
    Verdict v;
    {
        Spi spi;
        spi.run("CALL privrisk.record_audit($1, NULL, NULL, NULL, NULL, '{}'::pg_catalog.jsonb, $2)",
                {oid_arg(REGCLASSOID, view), text_arg(profile)}, false);
        spi.finish();
    }
    AsCatalogOwner owner;
    Spi spi;
    // Not read-only: the statement must see the row the CALL just wrote.
    const uint64 n = spi.run(
        "SELECT l.id, "
        "COALESCE(l.result OPERATOR(pg_catalog.#>>) '{verdict,publishable}' OPERATOR(pg_catalog.=) "
        "'true', false)::pg_catalog.int4, "
        "pg_catalog.jsonb_path_query_array(l.result, '$.verdict.checks[*] ? (@.passed == false)')::pg_catalog.text, "
        "COALESCE(l.result OPERATOR(pg_catalog.#>>) '{verdict,summary}', '') "
        "FROM privrisk.audit_log l "
        "WHERE l.id OPERATOR(pg_catalog.=) pg_catalog.currval('privrisk.audit_log_id_seq'::pg_catalog.regclass)",
        {}, false);
    if (n != 1) fail(ErrorKind::Internal, "the audit of the watched view wrote no audit log row");
    v.audit_id = spi.int8(0, 1);
    v.passed = spi.int8(0, 2) != 0;
    v.failed = spi.string(0, 3);
    v.summary = spi.string(0, 4);
    spi.finish();
    return v;
}

// Errors a recheck records as a failing verdict instead of stopping: all but
// a cancel or a shutdown, which stop the recheck.
bool recorded_as_failure(int sqlstate) {
    return sqlstate != ERRCODE_QUERY_CANCELED && sqlstate != ERRCODE_ADMIN_SHUTDOWN &&
           sqlstate != ERRCODE_CRASH_SHUTDOWN && sqlstate != ERRCODE_OUT_OF_MEMORY;
}

// Rechecks `view` (the caller is its steward): records the verdict and sends
// NOTIFY when it differs from the last one. `first`: the check of watch(), where
// an error stops everything (the steward is there to read it) instead of being
// recorded. Returns the verdict as jsonb text.
std::string recheck(Oid view, bool first) {
    std::optional<Watch> watch = lock_watch(view);
    if (!watch)
        fail(ErrorKind::UndefinedObject,
             "release view " + quote_value(relation_text(view)) + " is not watched (privrisk.watch)");
    Verdict v;
    if (first) {
        v = audit_view(view, watch->profile);
    } else {
        Caught caught;
        if (!in_subtransaction(
                recorded_as_failure, [&] { v = audit_view(view, watch->profile); }, &caught)) {
            v = Verdict{};
            v.summary = "not checked: " + caught.message;
            Spi spi;
            spi.run("SELECT pg_catalog.jsonb_build_array(pg_catalog.jsonb_build_object('error', $1))::pg_catalog.text",
                    {text_arg(caught.message)}, true);
            v.failed = spi.string(0, 1);
            spi.finish();
        }
    }
    const char* role = pg_call([] { return GetUserNameFromId(GetUserId(), false); });
    const SpiArg previous =
        watch->passed ? SpiArg{BOOLOID, BoolGetDatum(*watch->passed), false} : SpiArg{BOOLOID, 0, true};
    const SpiArg passed{BOOLOID, BoolGetDatum(v.passed), false};
    const SpiArg audit_id = v.audit_id ? SpiArg{INT8OID, Int64GetDatum(*v.audit_id), false} : SpiArg{INT8OID, 0, true};
    {
        AsCatalogOwner owner;
        Spi spi;
        spi.run(
            "UPDATE privrisk.watched_view SET passed = $2, failed = $3::pg_catalog.jsonb, summary = $4, "
            "checked_at = pg_catalog.now(), checked_by = $5::pg_catalog.name, audit_id = $6 "
            "WHERE view OPERATOR(pg_catalog.=) $1",
            {oid_arg(REGCLASSOID, view), passed, text_arg(v.failed), text_arg(v.summary), text_arg(role), audit_id},
            false);
        spi.finish();
    }
    const bool changed = !watch->passed || *watch->passed != v.passed;
    Spi spi;
    spi.run(
        "SELECT pg_catalog.jsonb_build_object('view', $1, 'profile', $2, 'passed', $3, 'previous', "
        "$4)::pg_catalog.text",
        {text_arg(watch->view), text_arg(watch->profile), passed, previous}, true);
    const std::string payload = spi.string(0, 1);
    // The payload names the view and the profile, never a value or a threshold:
    // any role may LISTEN on the channel.
    if (changed) spi.run("SELECT pg_catalog.pg_notify($1, $2)", {text_arg(kChannel), text_arg(payload)}, false);
    spi.run(
        "SELECT ($1::pg_catalog.jsonb OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_object('summary', $2, "
        "'failed', $3::pg_catalog.jsonb, 'audit_id', $4, 'notified', $5))::pg_catalog.text",
        {text_arg(payload), text_arg(v.summary), text_arg(v.failed), audit_id,
         SpiArg{BOOLOID, BoolGetDatum(changed), false}},
        true);
    std::string verdict = spi.string(0, 1);
    spi.finish();
    return verdict;
}

}  // namespace

// watch(view regclass, profile text, fail_closed boolean) returns jsonb
PRIVRISK_FUNCTION(privrisk_watch) {
    Oid view = view_arg(fcinfo, "watch");
    if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "watch: profile must not be NULL");
    if (PG_ARGISNULL(2)) fail(ErrorKind::InvalidParameter, "watch: fail_closed must not be NULL");
    std::string profile(text_arg_view(fcinfo, 1, "profile"));
    const bool fail_closed = PG_GETARG_BOOL(2);
    require_steward(view, "watch it");
    {
        Spi spi;  // an unknown profile is an error naming it
        spi.run("SELECT privrisk.profile_options($1, 'audit')", {text_arg(profile)}, true);
        spi.finish();
    }
    const char* role = pg_call([] { return GetUserNameFromId(GetUserId(), false); });
    {
        AsCatalogOwner owner;
        Spi spi;
        uint64 n = spi.run(
            "INSERT INTO privrisk.watched_view(view, profile, fail_closed, watched_by) "
            "VALUES ($1, $2, $3, $4::pg_catalog.name) ON CONFLICT (view) DO NOTHING",
            {oid_arg(REGCLASSOID, view), text_arg(profile), SpiArg{BOOLOID, BoolGetDatum(fail_closed), false},
             text_arg(role)},
            false);
        spi.finish();
        if (n == 0)
            fail(ErrorKind::DuplicateObject, "release view " + quote_value(relation_text(view)) +
                                                 " is watched already; privrisk.unwatch it first to change its "
                                                 "profile or fail_closed");
    }
    return jsonb_datum(recheck(view, true));
}

// unwatch(view regclass)
PRIVRISK_FUNCTION(privrisk_unwatch) {
    Oid view = view_arg(fcinfo, "unwatch");
    require_steward(view, "unwatch it");
    uint64 n;
    {
        AsCatalogOwner owner;
        Spi spi;
        n = spi.run("DELETE FROM privrisk.watched_view WHERE view OPERATOR(pg_catalog.=) $1",
                    {oid_arg(REGCLASSOID, view)}, false);
        spi.finish();
    }
    if (n == 0)
        fail(ErrorKind::UndefinedObject, "release view " + quote_value(relation_text(view)) + " is not watched");
    PG_RETURN_VOID();
}

// recheck_view(view regclass) returns jsonb
PRIVRISK_FUNCTION(privrisk_recheck_view) {
    Oid view = view_arg(fcinfo, "recheck_view");
    require_steward(view, "recheck it");
    return jsonb_datum(recheck(view, false));
}
