// A per-backend cache of what a release reads from privrisk's catalog tables
// (policy, policy_rule, policy_column, release_view, policy_suppression,
// watched_view): the rows, never a decision. Every permission check runs per
// query on what the cache returns, as it ran on what the catalog returned.
//
// Any change to one of those tables, in this session or another, flushes it:
// their triggers send a relcache invalidation of the table (src/sql/release/
// catalog_rules.sql), which arrives here. A lookup first takes the pending
// invalidations in, so a change committed before the statement began is seen
// (a change of this transaction, once its command ended; a rolled-back one is
// forgotten, as the abort replays the invalidations). A load is kept only when
// the snapshot it was read under saw every change flushed so far (docs/release.md,
// "Catalog cache"); otherwise it serves this lookup only.
#pragma once

#include <cstdint>
#include <unordered_map>
#include <utility>

#include "common/postgres.hpp"

namespace privrisk::pg {

// Takes pending invalidations in; the generation of the cache's contents.
uint64_t release_cache_generation();

// A load in progress: what its snapshot has seen.
struct ReleaseCacheLoad {
    uint64_t generation;
    bool fresh;  // the active snapshot sees every change the cache was flushed for
};
ReleaseCacheLoad release_cache_begin_load();
// Whether a load begun with `load` may be kept (nothing was flushed meanwhile).
bool release_cache_keep(const ReleaseCacheLoad& load);

// privrisk.release_cache_enabled (for tests and measurements): off, every lookup reads the catalog.
bool release_cache_enabled();

// Registers the invalidation callback and the setting; called once from _PG_init.
void register_release_cache();

// One kind of cached read: `Value` by `Key`, loaded by the caller's function.
// Values are copied out; the map is emptied on its first use after a flush (the
// callback only counts flushes).
template <typename Key, typename Value, typename Hash = std::hash<Key>>
class ReleaseCache {
public:
    template <typename Load>
    Value get(const Key& key, Load&& load) {
        if (!release_cache_enabled()) return load();
        const uint64_t now = release_cache_generation();
        if (generation_ != now) {
            map_.clear();
            generation_ = now;
        }
        auto it = map_.find(key);
        if (it != map_.end()) return it->second;
        if (map_.size() >= kMaxEntries) map_.clear();  // names a caller makes up do not grow it without end
        const ReleaseCacheLoad ticket = release_cache_begin_load();
        Value value = load();
        if (release_cache_keep(ticket) && generation_ == ticket.generation) map_.emplace(key, value);
        return value;
    }

private:
    static constexpr std::size_t kMaxEntries = 4096;
    std::unordered_map<Key, Value, Hash> map_;
    uint64_t generation_ = 0;
};

}  // namespace privrisk::pg
