// The release's catalog cache (policy_cache.hpp): the flush on invalidation,
// and whether a load may be kept.
#include "release/policy_cache.hpp"

#include "common/error.hpp"
#include "common/guard.hpp"

extern "C" {
#include "access/transam.h"
#include "miscadmin.h"
#include "storage/proc.h"
#include "utils/guc.h"
#include "utils/snapmgr.h"
}

namespace privrisk::pg {
namespace {

bool enabled = true;
uint64_t generation = 1;
// When the last flush happened: the newest transaction completed by then (every
// change flushed for was made by a transaction no newer), and this backend's
// transaction and command then (its own changes count from that command).
TransactionId flush_latest = InvalidTransactionId;
LocalTransactionId flush_transaction = InvalidLocalTransactionId;
CommandId flush_command = FirstCommandId;

// The catalog tables whose rows are cached, looked up before a load (so that an
// invalidation arriving during it is recognized) and forgotten at each flush (a
// table dropped and created again, as by DROP and CREATE EXTENSION, has a new OID).
constexpr const char* kTables[] = {"policy",       "policy_rule",        "policy_column",
                                   "release_view", "policy_suppression", "watched_view"};
constexpr int kTableCount = sizeof kTables / sizeof kTables[0];
Oid table_oids[kTableCount] = {};
bool oids_known = false;

// A flush only counts (it runs in invalidation callbacks, many of them for
// relations that are not the cache's); where it happened is read at the next
// load (settle_flush). Read later, it is a later point: a load is kept less often,
// never more.
bool flush_pending = false;

void flush() {
    ++generation;
    pg_memory_barrier();
    flush_pending = true;
    oids_known = false;
}

void settle_flush() {
    if (!flush_pending) return;
    LWLockAcquire(ProcArrayLock, LW_SHARED);
    flush_latest = XidFromFullTransactionId(ShmemVariableCache->latestCompletedXid);
    LWLockRelease(ProcArrayLock);
    flush_transaction = MyProc ? MyProc->lxid : InvalidLocalTransactionId;
    flush_command = GetCurrentCommandId(false);
    flush_pending = false;
}

void on_relcache_invalidation(Datum, Oid relid) {
    if (relid == InvalidOid) return flush();  // a full reset says nothing of what changed
    // The tables are looked up again at the next load: until then any relation may be
    // one of them, and its change must move the flush point (else a load under a snapshot
    // older than that change would be kept). Nothing is kept meanwhile, so it costs nothing.
    if (!oids_known) return flush();
    for (Oid table : table_oids)
        if (table == relid) return flush();
}

// Whether the catalog tables could be looked up (a catalog older than 0.15
// lacks some: tables that are missing are not cached from).
bool remember_tables() {
    if (oids_known) return true;
    bool all = true;
    pg_call([&] {
        Oid schema = get_namespace_oid("privrisk", true);
        for (int i = 0; i < kTableCount; ++i) {
            table_oids[i] = OidIsValid(schema) ? get_relname_relid(kTables[i], schema) : InvalidOid;
            all &= OidIsValid(table_oids[i]);
        }
    });
    oids_known = all;
    return all;
}

}  // namespace

uint64_t release_cache_generation() {
    pg_call([] { AcceptInvalidationMessages(); });  // an unlocked flag test when nothing is pending
    return generation;
}

ReleaseCacheLoad release_cache_begin_load() {
    if (!remember_tables()) return {generation, false};
    pg_call([] { settle_flush(); });
    // A load reads under the active snapshot (or a newer one): kept only when
    // that snapshot sees every change the cache was flushed for (another
    // session's, or this transaction's up to its command). Its xmin newer than
    // the newest transaction completed at the flush: every transaction up to
    // that one had ended when the snapshot was taken. (A snapshot's completion
    // count cannot say it: the active snapshot is a copy, and copies have none.)
    // A transaction that began before the flush and still runs keeps loads from
    // being kept until it ends.
    const bool fresh = pg_call([] {
        if (!ActiveSnapshotSet()) return false;
        Snapshot snapshot = GetActiveSnapshot();
        if (TransactionIdIsValid(flush_latest) && !TransactionIdFollows(snapshot->xmin, flush_latest)) return false;
        return !MyProc || MyProc->lxid != flush_transaction || snapshot->curcid >= flush_command;
    });
    return {generation, fresh};
}

bool release_cache_keep(const ReleaseCacheLoad& load) {
    return load.fresh && load.generation == generation && oids_known;
}

bool release_cache_enabled() { return enabled; }

void register_release_cache() {
    CacheRegisterRelcacheCallback(on_relcache_invalidation, (Datum)0);
    // Loaded by a backend that is running (not preloaded by the postmaster): invalidations
    // it consumed before now went unseen here, so its loading counts as a flush: a load
    // under a snapshot taken before is not kept.
    if (!process_shared_preload_libraries_in_progress) flush();
    DefineCustomBoolVariable("privrisk.release_cache",
                             "Keeps what release scans read from privrisk's catalog tables in each backend.",
                             "Off: every release reads the catalog again (for measurements).", &enabled, true,
                             PGC_USERSET, GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
}

}  // namespace privrisk::pg

// Trigger on the release's catalog tables: tells every backend to drop what it cached from them.
PRIVRISK_FUNCTION(privrisk_release_catalog_changed) {
    using namespace privrisk::pg;
    auto* trigger = reinterpret_cast<TriggerData*>(fcinfo->context);
    if (!CALLED_AS_TRIGGER(fcinfo))
        fail(privrisk::ErrorKind::InvalidParameter, "privrisk.release_catalog_changed() is a trigger");
    Relation rel = trigger->tg_relation;
    pg_call([&] { CacheInvalidateRelcache(rel); });
    return PointerGetDatum(nullptr);
}
