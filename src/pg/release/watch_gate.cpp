// The read check of a watched release view (docs/watch.md): one catalog query,
// as the catalog's owner (a reader of the view may not read the watch catalog),
// and only for readers who are not the source's owner.
#include "release/watch_gate.hpp"

#include <string>

#include "common/catalog_owner.hpp"
#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/spi.hpp"
#include "release/policy_cache.hpp"
#include "release/policy_catalog.hpp"

extern "C" {
#include "storage/bufmgr.h"
}

namespace privrisk::pg {

namespace {

// Why `view` is closed (its message), or an empty string while it is open.
std::string closed_reason(Oid view) {
    // Nothing watched, no query: a database not yet updated to 0.15 has no watch
    // catalog, and one where nothing was ever watched has an empty file (a read
    // of a release view then costs no planning of the query below).
    const bool any = pg_call([] {
        Oid relid = get_relname_relid("watched_view", get_namespace_oid("privrisk", false));
        if (!OidIsValid(relid)) return false;
        Relation rel = table_open(relid, AccessShareLock);
        bool rows = RelationGetNumberOfBlocks(rel) > 0;
        table_close(rel, AccessShareLock);
        return rows;
    });
    if (!any) return "";
    // Any watched view of the same policy closes them all: every release view of
    // a policy releases the same rows, so another view must not reopen the release.
    std::string read, name, profile, summary, when, by;
    {
        AsCatalogOwner owner;
        Spi spi;
        const uint64 n = spi.run(
            "SELECT r.view::pg_catalog.text, w.view::pg_catalog.text, w.profile, COALESCE(w.summary, ''), "
            "COALESCE(pg_catalog.to_char(w.checked_at, 'YYYY-MM-DD HH24:MI:SSOF'), ''), "
            "COALESCE(w.checked_by::pg_catalog.text, '') "
            "FROM privrisk.release_view r "
            "JOIN privrisk.release_view v ON v.policy OPERATOR(pg_catalog.=) r.policy "
            "JOIN privrisk.watched_view w ON w.view OPERATOR(pg_catalog.=) v.view "
            "WHERE r.view OPERATOR(pg_catalog.=) $1 AND w.fail_closed AND w.passed IS FALSE "
            "ORDER BY w.view OPERATOR(pg_catalog.<>) r.view, w.view::pg_catalog.oid LIMIT 1",
            {oid_arg(REGCLASSOID, view)}, true);
        if (n > 0) {
            read = spi.string(0, 1);
            name = spi.string(0, 2);
            profile = spi.string(0, 3);
            summary = spi.string(0, 4);
            when = spi.string(0, 5);
            by = spi.string(0, 6);
        }
        spi.finish();
    }
    if (name.empty()) return "";
    const std::string whose =
        read == name ? "its last check" : "the last check of release view " + quote_value(name) + " of the same policy";
    return "release view " + quote_value(read) + " is closed: " + whose + " against risk profile " +
           quote_value(profile) + " failed (" + summary + ") at " + when + " by " + quote_value(by) +
           "; it is watched with fail_closed: the owner of its source fixes the data or the policy and rechecks "
           "the view (privrisk.recheck_view, or CALL privrisk.recheck_watched()), or stops watching it "
           "(privrisk.unwatch)";
}

}  // namespace

void check_view_open(Oid view, Oid source) {
    if (!OidIsValid(view)) return;
    const bool steward = pg_call([&] { return pg_class_ownercheck(source, GetUserId()); });
    if (steward) return;
    // Whether it is closed is cached (a recheck's verdict flushes the cache); the
    // message is read again, in the reader's time zone, when it is.
    static ReleaseCache<Oid, bool> closed;
    if (!closed.get(view, [&] { return !closed_reason(view).empty(); })) return;
    const std::string reason = closed_reason(view);
    if (!reason.empty()) fail(ErrorKind::PermissionDenied, reason);
}

}  // namespace privrisk::pg
