// Module entry: the hierarchy cache's invalidation callback and the settings.
#include "audit.hpp"
#include "hierarchy_catalog.hpp"
#include "postgres.hpp"

extern "C" {
PG_MODULE_MAGIC;

void _PG_init(void);
void _PG_init(void) {
    privrisk::pg::register_hierarchy_cache();
    privrisk::pg::register_audit_settings();
}
}
