COMMENT ON TABLE privrisk.hierarchy IS 'Generalization hierarchies: level 0 is the value, level height is ⊥ (NULL)';

COMMENT ON COLUMN privrisk.hierarchy.owner IS 'Role that may replace, drop or give away the hierarchy';

COMMENT ON COLUMN privrisk.hierarchy.version IS 'Changes on every replace; never reused, even for a re-created name';

COMMENT ON TABLE privrisk.hierarchy_leaf IS 'Leaves of tree hierarchies with their ancestors, one row per CSV line';
