// Module entry: the hierarchy and release caches' invalidation callbacks, the settings, the
// release scan's and the shards' GROUP BY's planner hooks and the column label provider. Above every wing (the
// only file that includes them all), so no wing includes a higher one to be registered.
#include "classes/class_memory.hpp"
#include "classes/shard_grouping.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "labels/column_labels.hpp"
#include "common/memory_limit.hpp"
#include "common/postgres.hpp"
#include "release/policy_cache.hpp"
#include "release/release_scan.hpp"
#include "search/search.hpp"

extern "C" {
PG_MODULE_MAGIC;

void _PG_init(void);
void _PG_init(void) {
    privrisk::pg::register_hierarchy_cache();
    privrisk::pg::register_audit_settings();
    privrisk::pg::register_release_scan();
    privrisk::pg::register_shard_grouping();
    privrisk::pg::register_release_cache();
    privrisk::pg::register_search_settings();
    privrisk::pg::register_label_provider();
    privrisk::pg::register_memory_limit();
    // Every privrisk.* setting is defined above: any other is a mistake, refused
    // from now on (a placeholder set before the module loaded is dropped with a WARNING).
    MarkGUCPrefixReserved("privrisk");
}
}
