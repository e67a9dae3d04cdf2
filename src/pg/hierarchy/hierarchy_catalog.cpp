#include "hierarchy/hierarchy_catalog.hpp"

#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>

#include "common/digest.hpp"
#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/spi.hpp"

extern "C" {
#include "access/xact.h"
}

namespace privrisk::pg {
namespace {

// A parsed hierarchy and the catalog version it came from. `unconfirmed`: the
// catalog changed while it was being read, so the row may predate the change
// (a read-only load sees the calling statement's snapshot); it serves that
// statement only and is read again by the next one.
struct Entry {
    std::unique_ptr<Hierarchy> hierarchy;
    int64 version;
    std::string digest;
    bool unconfirmed;
    TimestampTz statement;
};
using Cache = std::unordered_map<std::string, Entry>;

// Each generation of the cache lives in a memory context of its own, whose
// reset callback destroys the C++ object and the hierarchies it owns. A flush
// does not destroy it: code in the middle of a call may still hold references
// (a function using two hierarchies, a scan), and an invalidation can arrive
// at any catalog access, even one caused by autovacuum's ANALYZE of the
// catalog. The flushed generation is retired instead and freed when the
// transaction ends, when no privrisk call can be running.
MemoryContext cache_context = nullptr;    // parent of the current generation
MemoryContext retired_context = nullptr;  // parent of flushed generations, reset at transaction end
MemoryContext generation_context = nullptr;
Cache* cache = nullptr;
uint64_t generation = 1;
Oid hierarchy_relid = InvalidOid;
Oid leaf_relid = InvalidOid;

void destroy_cache(void* arg) { static_cast<Cache*>(arg)->~Cache(); }

Cache& the_cache() {
    if (cache) return *cache;
    void* memory = pg_call([] {
        if (!cache_context) {
            cache_context = AllocSetContextCreate(TopMemoryContext, "privrisk hierarchy cache", ALLOCSET_SMALL_SIZES);
            retired_context =
                AllocSetContextCreate(TopMemoryContext, "privrisk retired hierarchies", ALLOCSET_SMALL_SIZES);
        }
        generation_context =
            AllocSetContextCreate(cache_context, "privrisk hierarchy generation", ALLOCSET_SMALL_SIZES);
        return MemoryContextAlloc(generation_context, sizeof(Cache));
    });
    auto* callback = static_cast<MemoryContextCallback*>(
        pg_call([] { return MemoryContextAllocZero(generation_context, sizeof(MemoryContextCallback)); }));
    cache = new (memory) Cache();
    callback->func = destroy_cache;
    callback->arg = cache;
    pg_call([&] { MemoryContextRegisterResetCallback(generation_context, callback); });
    return *cache;
}

void flush() {
    if (generation_context) MemoryContextSetParent(generation_context, retired_context);
    generation_context = nullptr;
    cache = nullptr;
    ++generation;
}

void free_retired(XactEvent event, void*) {
    if (retired_context &&
        (event == XACT_EVENT_COMMIT || event == XACT_EVENT_ABORT || event == XACT_EVENT_PARALLEL_COMMIT ||
         event == XACT_EVENT_PARALLEL_ABORT || event == XACT_EVENT_PREPARE))
        MemoryContextReset(retired_context);  // deletes the generations: their callbacks free the hierarchies
}

// Any change to either catalog table, in this session or another, arrives here
// as a relcache invalidation (the tables' triggers send one; see the install script).
void on_relcache_invalidation(Datum, Oid relid) {
    if (relid == InvalidOid || relid == hierarchy_relid || relid == leaf_relid) {
        flush();
        hierarchy_relid = leaf_relid = InvalidOid;  // looked up again on the next load
    }
}

void remember_catalog_oids() {
    pg_call([] {
        Oid schema = get_namespace_oid("privrisk", true);
        if (OidIsValid(schema)) {
            hierarchy_relid = get_relname_relid("hierarchy", schema);
            leaf_relid = get_relname_relid("hierarchy_leaf", schema);
        }
    });
}

// Every name below is schema-qualified, operators included: the caller's
// search_path (pg_temp too) cannot put its own objects in these queries.
std::unique_ptr<Hierarchy> load(std::string_view name, int64& version, std::string& digest) {
    const char* sql = hierarchy_catalog_has_owners()
                          ? "SELECT kind, root, lo::pg_catalog.float8, hi::pg_catalog.float8, widths, max_len, version "
                            "FROM privrisk.hierarchy WHERE name OPERATOR(pg_catalog.=) $1"
                          : "SELECT kind, root, lo::pg_catalog.float8, hi::pg_catalog.float8, widths, max_len, "
                            "0::pg_catalog.int8 FROM privrisk.hierarchy WHERE name OPERATOR(pg_catalog.=) $1";
    Spi spi;
    if (spi.run(sql, {text_arg(name)}, true) == 0)
        fail(ErrorKind::UndefinedObject, "hierarchy " + quote_value(name) + " does not exist");
    version = spi.int8(0, 7);
    std::string kind = spi.string(0, 1);
    std::string key(name);
    std::unique_ptr<Hierarchy> h;
    Digest sum;  // of the definition, not the name or the version: equal on every server that loaded the same
    sum.add(kind);
    if (kind == "tree") {
        std::string root = spi.string(0, 2);
        sum.add(root);
        uint64 n = spi.run(
            "SELECT line, path FROM privrisk.hierarchy_leaf WHERE hierarchy OPERATOR(pg_catalog.=) $1 "
            "ORDER BY line USING OPERATOR(pg_catalog.<)",
            {text_arg(name)}, true);
        std::vector<CsvRecord> records;
        records.reserve(n);
        for (uint64 i = 0; i < n; ++i) {
            records.push_back({spi.int8(i, 1), spi.strings(i, 2)});
            records.back().fields.push_back(root);
            sum.add(std::to_string(records.back().fields.size()));
            for (const std::string& f : records.back().fields) sum.add(f);
        }
        try {
            h = make_tree_hierarchy(key, records);  // re-validates rows restored or edited by hand
        } catch (const Error& e) {
            fail(e.kind(), "hierarchy " + quote_value(name) + " in privrisk.hierarchy_leaf is invalid: " + e.what());
        }
    } else if (kind == "interval") {
        std::vector<long> widths = spi.int8_array(0, 5);
        sum.add(number_text(spi.float8(0, 3)));
        sum.add(number_text(spi.float8(0, 4)));
        for (long w : widths) sum.add(std::to_string(w));
        h = make_interval_hierarchy(key, spi.float8(0, 3), spi.float8(0, 4), widths);
    } else if (kind == "prefix") {
        sum.add(std::to_string(spi.int8(0, 6)));
        h = make_prefix_hierarchy(key, static_cast<int>(spi.int8(0, 6)));
    } else if (kind == "date") {
        h = make_date_hierarchy(key);
    } else {
        fail(ErrorKind::Internal, "hierarchy " + quote_value(name) + " has unknown kind " + quote_value(kind));
    }
    spi.finish();
    digest = sum.hex();
    return h;
}

TimestampTz statement_start() { return GetCurrentStatementStartTimestamp(); }

}  // namespace

const Hierarchy& cached_hierarchy(std::string_view name, int64* version, std::string* digest) {
    if (cache) {
        auto it = cache->find(std::string(name));
        if (it != cache->end()) {
            if (!it->second.unconfirmed || it->second.statement == statement_start()) {
                if (version) *version = it->second.version;
                if (digest) *digest = it->second.digest;
                return *it->second.hierarchy;
            }
            flush();  // a doubtful entry from an earlier statement: read everything again
        }
    }
    // Known before loading, so an invalidation that arrives during the load is
    // recognized; the cache is filled only afterwards, as loading may flush it.
    if (!OidIsValid(hierarchy_relid)) remember_catalog_oids();
    uint64_t before = generation;
    int64 loaded_version = 0;
    std::string loaded_digest;
    std::unique_ptr<Hierarchy> h = load(name, loaded_version, loaded_digest);
    remember_catalog_oids();
    Cache& c = the_cache();
    Entry& e = c[std::string(name)];
    e.hierarchy = std::move(h);
    e.version = loaded_version;
    e.digest = loaded_digest;
    e.unconfirmed = generation != before;
    e.statement = statement_start();
    if (version) *version = loaded_version;
    if (digest) *digest = loaded_digest;
    return *e.hierarchy;
}

const Hierarchy& cached_hierarchy(std::string_view name) { return cached_hierarchy(name, nullptr, nullptr); }

bool hierarchy_catalog_has_owners() {
    return pg_call([] {
        Oid schema = get_namespace_oid("privrisk", false);
        Oid relid = get_relname_relid("hierarchy", schema);
        return OidIsValid(relid) && get_attnum(relid, "version") != InvalidAttrNumber;
    });
}

int64 hierarchy_version(std::string_view name) {
    if (!hierarchy_catalog_has_owners())
        fail(ErrorKind::Internal, "privrisk.hierarchy has no versions yet; run ALTER EXTENSION privrisk UPDATE");
    Spi spi;
    if (spi.run("SELECT version FROM privrisk.hierarchy WHERE name OPERATOR(pg_catalog.=) $1", {text_arg(name)},
                true) == 0)
        fail(ErrorKind::UndefinedObject, "hierarchy " + quote_value(name) + " does not exist");
    int64 version = spi.int8(0, 1);
    spi.finish();
    return version;
}

uint64_t hierarchy_generation() { return generation; }

const Hierarchy& HierarchyPins::pin(std::string_view name) {
    std::string digest;
    const Hierarchy& h = cached_hierarchy(name, nullptr, &digest);
    digests_.emplace_back(std::string(name), std::move(digest));
    return h;
}

void HierarchyPins::check(const char* during) {
    if (generation_ == generation) return;
    for (const auto& [name, digest] : digests_) {
        std::string now;
        cached_hierarchy(name, nullptr, &now);
        if (now != digest) fail(ErrorKind::InvalidParameter, "hierarchy " + quote_value(name) + " changed " + during);
    }
    generation_ = generation;
}

void register_hierarchy_cache() {
    CacheRegisterRelcacheCallback(on_relcache_invalidation, (Datum)0);
    RegisterXactCallback(free_retired, nullptr);
}

namespace {
struct CallMemo {
    uint64_t generation;
    const Hierarchy* hierarchy;
    int name_len;
    char name[FLEXIBLE_ARRAY_MEMBER];
};
}  // namespace

const Hierarchy& hierarchy_for_call(FunctionCallInfo fcinfo, text* name, void** slot) {
    if (!slot) slot = &fcinfo->flinfo->fn_extra;
    const char* bytes = VARDATA_ANY(name);
    int len = static_cast<int>(VARSIZE_ANY_EXHDR(name));
    auto* memo = static_cast<CallMemo*>(*slot);
    if (memo && memo->generation == generation && memo->name_len == len && std::memcmp(memo->name, bytes, len) == 0)
        return *memo->hierarchy;
    const Hierarchy& h = cached_hierarchy(std::string_view(bytes, len));
    if (!memo || memo->name_len < len) {
        memo = static_cast<CallMemo*>(
            pg_call([&] { return MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, offsetof(CallMemo, name) + len); }));
        *slot = memo;
    }
    memo->generation = generation;
    memo->hierarchy = &h;
    memo->name_len = len;
    std::memcpy(memo->name, bytes, len);
    return h;
}

}  // namespace privrisk::pg
