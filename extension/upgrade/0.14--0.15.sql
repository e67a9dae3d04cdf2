-- 0.14 → 0.15: what a 0.14 database needs beyond the current definitions (extension/README.md).

-- watch: the catalog of watched release views (docs/watch.md), new in 0.15.
-- include: src/sql/watch/catalog.sql
-- include: src/sql/watch/catalog_rules.sql
