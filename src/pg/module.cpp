// Module entry: registers the hierarchy cache's invalidation callback.
#include "hierarchy_catalog.hpp"
#include "postgres.hpp"

extern "C" {
PG_MODULE_MAGIC;

void _PG_init(void);
void _PG_init(void) { privrisk::pg::register_hierarchy_cache(); }
}
