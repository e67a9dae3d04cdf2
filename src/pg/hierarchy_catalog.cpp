#include "hierarchy_catalog.hpp"

#include <cstring>
#include <memory>
#include <new>
#include <string>
#include <unordered_map>

#include "error.hpp"
#include "guard.hpp"
#include "spi.hpp"

namespace privrisk::pg {
namespace {

using Cache = std::unordered_map<std::string, std::unique_ptr<Hierarchy>>;

// The cache object lives in its own memory context; resetting the context runs
// the callback that destroys it, so a flush frees the C++ heap it owns too.
MemoryContext cache_context = nullptr;
Cache* cache = nullptr;
uint64_t generation = 1;
Oid hierarchy_relid = InvalidOid;
Oid leaf_relid = InvalidOid;

void destroy_cache(void* arg) {
    static_cast<Cache*>(arg)->~Cache();
    cache = nullptr;
}

Cache& the_cache() {
    if (cache) return *cache;
    void* memory = pg_call([] {
        if (!cache_context)
            cache_context = AllocSetContextCreate(TopMemoryContext, "privrisk hierarchy cache", ALLOCSET_SMALL_SIZES);
        return MemoryContextAlloc(cache_context, sizeof(Cache));
    });
    auto* callback = static_cast<MemoryContextCallback*>(
        pg_call([] { return MemoryContextAllocZero(cache_context, sizeof(MemoryContextCallback)); }));
    cache = new (memory) Cache();
    callback->func = destroy_cache;
    callback->arg = cache;
    pg_call([&] { MemoryContextRegisterResetCallback(cache_context, callback); });
    return *cache;
}

void flush() {
    if (cache_context) MemoryContextReset(cache_context);  // runs destroy_cache
    ++generation;
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

std::unique_ptr<Hierarchy> load(std::string_view name) {
    Spi spi;
    if (spi.run("SELECT kind, root, lo::float8, hi::float8, widths::int8[], max_len "
                "FROM privrisk.hierarchy WHERE name = $1",
                {text_arg(name)}, true) == 0)
        fail(ErrorKind::UndefinedObject, "hierarchy " + quote_value(name) + " does not exist");
    std::string kind = spi.string(0, 1);
    std::string key(name);
    std::unique_ptr<Hierarchy> h;
    if (kind == "tree") {
        std::string root = spi.string(0, 2);
        uint64 n = spi.run("SELECT line, path FROM privrisk.hierarchy_leaf WHERE hierarchy = $1 ORDER BY line",
                           {text_arg(name)}, true);
        std::vector<CsvRecord> records;
        records.reserve(n);
        for (uint64 i = 0; i < n; ++i) {
            records.push_back({spi.int8(i, 1), spi.strings(i, 2)});
            records.back().fields.push_back(root);
        }
        try {
            h = make_tree_hierarchy(key, records);  // re-validates rows restored or edited by hand
        } catch (const Error& e) {
            fail(e.kind(), "hierarchy " + quote_value(name) + " in privrisk.hierarchy_leaf is invalid: " + e.what());
        }
    } else if (kind == "interval") {
        h = make_interval_hierarchy(key, spi.float8(0, 3), spi.float8(0, 4), spi.int8_array(0, 5));
    } else if (kind == "prefix") {
        h = make_prefix_hierarchy(key, static_cast<int>(spi.int8(0, 6)));
    } else if (kind == "date") {
        h = make_date_hierarchy(key);
    } else {
        fail(ErrorKind::Internal, "hierarchy " + quote_value(name) + " has unknown kind " + quote_value(kind));
    }
    spi.finish();
    return h;
}

}  // namespace

const Hierarchy& cached_hierarchy(std::string_view name) {
    if (cache) {
        auto it = cache->find(std::string(name));
        if (it != cache->end()) return *it->second;
    }
    // Loading may process invalidations (and flush the cache), so insert only afterwards.
    std::unique_ptr<Hierarchy> h = load(name);
    remember_catalog_oids();
    Cache& c = the_cache();
    auto [it, inserted] = c.emplace(std::string(name), std::move(h));
    return *it->second;
}

uint64_t hierarchy_generation() { return generation; }

void register_hierarchy_cache() { CacheRegisterRelcacheCallback(on_relcache_invalidation, (Datum)0); }

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
        memo = static_cast<CallMemo*>(pg_call([&] {
            return MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, offsetof(CallMemo, name) + len);
        }));
        *slot = memo;
    }
    memo->generation = generation;
    memo->hierarchy = &h;
    memo->name_len = len;
    std::memcpy(memo->name, bytes, len);
    return h;
}

}  // namespace privrisk::pg
