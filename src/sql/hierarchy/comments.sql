COMMENT ON TABLE privrisk.hierarchy IS 'Generalization hierarchies: level 0 is the value, level height is ⊥ (NULL)';

COMMENT ON COLUMN privrisk.hierarchy.owner IS 'Role that may replace, drop or give away the hierarchy';

COMMENT ON COLUMN privrisk.hierarchy.version IS 'Changes on every replace; never reused, even for a re-created name';

COMMENT ON TABLE privrisk.hierarchy_leaf IS 'Leaves of tree hierarchies with their ancestors, one row per CSV line';
COMMENT ON SEQUENCE privrisk.hierarchy_version_seq IS 'versions of hierarchies: a policy rule records the version it was approved with';
COMMENT ON VIEW privrisk.hierarchies IS 'every hierarchy: name, kind, height (levels), creator and time, leaves, owner and version';

COMMENT ON FUNCTION privrisk.alter_hierarchy_owner(text,regrole) IS 'gives a hierarchy to another role (its owner or a superuser only, to a role it is a member of)';
COMMENT ON FUNCTION privrisk.consistent(text,text,text) IS 'whether two values of a hierarchy are comparable (one generalizes the other) or either is NULL (suppressed)';
COMMENT ON FUNCTION privrisk.date_hierarchy(text,boolean) IS 'creates a date hierarchy (day, month, year, suppressed); returns its height in levels';
COMMENT ON FUNCTION privrisk.drop_hierarchy(text) IS 'drops a hierarchy (its owner or a superuser only)';
COMMENT ON FUNCTION privrisk.generalize(text,text,integer) IS 'the ancestor-or-self of a value at an absolute level of a hierarchy (NULL at its height: suppressed)';
COMMENT ON FUNCTION privrisk.generalizes(text,text,text) IS 'whether the first value is an ancestor-or-self of the second in a hierarchy (NULL stands for suppressed)';
COMMENT ON FUNCTION privrisk.hierarchy_changed() IS 'internal: trigger function invalidating the hierarchy cache of every backend';
COMMENT ON FUNCTION privrisk.hierarchy_height(text) IS 'the height of a hierarchy: the level of the suppressed value; levels';
COMMENT ON FUNCTION privrisk.interval_hierarchy(text,numeric,numeric,integer[],boolean) IS 'creates a hierarchy of nested numeric intervals of the given widths between lo and hi; returns its height in levels';
COMMENT ON FUNCTION privrisk.load_hierarchy(text,text,text,boolean) IS 'creates a tree hierarchy from ARX-style CSV (one line per leaf: leaf;parent;...;root); returns its height in levels';
COMMENT ON FUNCTION privrisk.prefix_hierarchy(text,integer,boolean) IS 'creates a hierarchy masking trailing characters of values up to max_len characters (''4790*'', ''479**''); returns its height in levels';
COMMENT ON TYPE privrisk.pinned_hierarchy IS 'a hierarchy pinned by the digest of its definition: name@digest[@server]';
COMMENT ON FUNCTION privrisk.pinned_hierarchy_in(cstring) IS 'internal: I/O function of type privrisk.pinned_hierarchy';
COMMENT ON FUNCTION privrisk.pinned_hierarchy_out(privrisk.pinned_hierarchy) IS 'internal: I/O function of type privrisk.pinned_hierarchy';
COMMENT ON FUNCTION privrisk.pinned_hierarchy_recv(internal) IS 'internal: I/O function of type privrisk.pinned_hierarchy';
COMMENT ON FUNCTION privrisk.pinned_hierarchy_send(privrisk.pinned_hierarchy) IS 'internal: I/O function of type privrisk.pinned_hierarchy';
COMMENT ON FUNCTION privrisk.pin_hierarchy(text) IS 'the hierarchy pinned as defined now (its name and the digest of its definition), for the IMMUTABLE gen()';
COMMENT ON FUNCTION privrisk.hierarchy_coverage(regclass, text, text) IS 'the values of a column a hierarchy lacks (not a leaf of it), with their row counts and why; empty when it covers them all';
COMMENT ON FUNCTION privrisk.hierarchy_tree(text) IS 'a tree hierarchy as rows in preorder: node, level, depth from the root, parent, leaves under it, and an indented preview';
COMMENT ON FUNCTION privrisk.ordered_hierarchy(text, text[], integer[], boolean) IS 'builds a tree hierarchy from values in order and group sizes per level (as ARX''s order-based builder): level j groups consecutive values, labelled [first..last]; returns its height';
COMMENT ON FUNCTION privrisk.require_tree_hierarchy(text, text, text) IS 'internal: an error unless the hierarchy exists and is a tree (purpose and alternative name the caller''s)';

COMMENT ON FUNCTION privrisk.load_hierarchy_from(text, regclass, boolean) IS 'creates a tree hierarchy from a table that holds its CSV (columns leaf first, root last; rows in the order loaded), e.g. filled by psql''s \copy from a file on the client; returns its height';
