// Module entry: the hierarchy cache's invalidation callback, the settings, and
// the release scan's planner hook.
#include "measures/audit.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "common/postgres.hpp"
#include "release/release_scan.hpp"
#include "search/search.hpp"

extern "C" {
PG_MODULE_MAGIC;

void _PG_init(void);
void _PG_init(void) {
    privrisk::pg::register_hierarchy_cache();
    privrisk::pg::register_audit_settings();
    privrisk::pg::register_release_scan();
    privrisk::pg::register_search_settings();
}
}
