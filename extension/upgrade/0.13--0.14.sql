-- 0.13 -> 0.14: what a 0.13 database needs beyond replaying the current
-- definitions (the Makefile appends every replayable fragment of src/sql and
-- the comments after this file).

-- labels: an event trigger loads the library before every SECURITY LABEL, so a
-- schema-level or table-level restore (no CREATE EXTENSION in its dump) keeps
-- its labels; replaces 0.13's NOTICE about session_preload_libraries.
CREATE OR REPLACE FUNCTION privrisk.load_label_provider() RETURNS event_trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'privrisk_load_label_provider';
-- include: src/sql/labels/catalog_rules.sql
