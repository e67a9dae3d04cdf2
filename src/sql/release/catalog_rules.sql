ALTER TABLE privrisk.policy ENABLE ROW LEVEL SECURITY;

ALTER TABLE privrisk.policy_rule ENABLE ROW LEVEL SECURITY;

ALTER TABLE privrisk.release_view ENABLE ROW LEVEL SECURITY;

ALTER TABLE privrisk.policy_column ENABLE ROW LEVEL SECURITY;

CREATE POLICY source_owner ON privrisk.policy FOR SELECT USING (privrisk.owns_source(source));

CREATE POLICY source_owner ON privrisk.policy_rule FOR SELECT USING (privrisk.owns_source(( SELECT p.source
   FROM privrisk.policy p
  WHERE (p.name = policy_rule.policy))));

CREATE POLICY source_owner ON privrisk.release_view FOR SELECT USING (privrisk.owns_source(( SELECT p.source
   FROM privrisk.policy p
  WHERE (p.name = release_view.policy))));

CREATE POLICY source_owner ON privrisk.policy_column FOR SELECT USING (privrisk.owns_source(( SELECT p.source
   FROM privrisk.policy p
  WHERE (p.name = policy_column.policy))));

CREATE EVENT TRIGGER privrisk_forget_dropped_relations ON sql_drop
    EXECUTE FUNCTION privrisk.forget_dropped_relations();

ALTER TABLE privrisk.policy_suppression ENABLE ROW LEVEL SECURITY;

CREATE POLICY source_owner ON privrisk.policy_suppression FOR SELECT USING (privrisk.owns_source(( SELECT p.source
   FROM privrisk.policy p
  WHERE (p.name = policy_suppression.policy))));

-- Each backend caches what releases read from these tables (docs/release.md,
-- "Catalog cache"): any change tells every backend to read them again. The
-- watch catalog (a later concept's, created before any rule) is one of them.
-- ALWAYS: also where session_replication_role is replica (a logical replica
-- applying changes, a restore with its triggers disabled).
CREATE TRIGGER release_catalog_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON privrisk.policy FOR EACH STATEMENT EXECUTE FUNCTION privrisk.release_catalog_changed();

CREATE TRIGGER release_catalog_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON privrisk.policy_rule FOR EACH STATEMENT EXECUTE FUNCTION privrisk.release_catalog_changed();

CREATE TRIGGER release_catalog_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON privrisk.policy_column FOR EACH STATEMENT EXECUTE FUNCTION privrisk.release_catalog_changed();

CREATE TRIGGER release_catalog_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON privrisk.release_view FOR EACH STATEMENT EXECUTE FUNCTION privrisk.release_catalog_changed();

CREATE TRIGGER release_catalog_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON privrisk.policy_suppression FOR EACH STATEMENT EXECUTE FUNCTION privrisk.release_catalog_changed();

CREATE TRIGGER release_catalog_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON privrisk.watched_view FOR EACH STATEMENT EXECUTE FUNCTION privrisk.release_catalog_changed();

ALTER TABLE privrisk.policy ENABLE ALWAYS TRIGGER release_catalog_changed;

ALTER TABLE privrisk.policy_rule ENABLE ALWAYS TRIGGER release_catalog_changed;

ALTER TABLE privrisk.policy_column ENABLE ALWAYS TRIGGER release_catalog_changed;

ALTER TABLE privrisk.release_view ENABLE ALWAYS TRIGGER release_catalog_changed;

ALTER TABLE privrisk.policy_suppression ENABLE ALWAYS TRIGGER release_catalog_changed;

ALTER TABLE privrisk.watched_view ENABLE ALWAYS TRIGGER release_catalog_changed;
