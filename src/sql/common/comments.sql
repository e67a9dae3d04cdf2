COMMENT ON FUNCTION privrisk.caller_regclass(name text) IS 'A relation name resolved on the search path of the caller of the privrisk function running now (internal)';

COMMENT ON FUNCTION privrisk.check_dictionary_mapping(mapping jsonb, leaf_weights jsonb) IS 'internal: checks a dictionary mapping and that leaf_weights has one entry per mapped attribute';

COMMENT ON FUNCTION privrisk.check_options(kind text, options jsonb) IS 'internal: checks the type and range of each known audit option (kind audit), search constraint (search) or dictionary option';

COMMENT ON FUNCTION privrisk.guard_selftest(text,integer) IS 'internal: exercises the error guards of the C++/PostgreSQL boundary (tests only)';
COMMENT ON FUNCTION privrisk.checked_options(text,jsonb,text[],text[],integer[],boolean) IS 'internal: the options of audit() or search() checked whole (types, ranges, unknown keys) and their dictionary resolved';
COMMENT ON VIEW privrisk.progress IS 'running searches and lattices of the sessions the reader may see: operation, done of total (unit), seconds spent and an upper estimate of the seconds left';
COMMENT ON FUNCTION privrisk.check_catalog() IS 'every invariant of the extension''s catalogs, one row per violation (none: consistent): tree hierarchies well-formed, policies'' sources, rule columns and hierarchies exist, rules bound, release views exist, budgets equal their ledgers, sequences past their ids; a role sees the violations in the catalog rows it may read (its own tables'' policies) and checks a sequence only if it may read it: run it as a superuser to see every row';
COMMENT ON FUNCTION privrisk.catalog_sequence_state(regclass) IS 'internal: a catalog sequence''s last value and is_called for check_catalog(), NULL for a role that may not read the sequence';
