-- 0.14 → 0.15: what a 0.14 database needs beyond the current definitions (extension/README.md).

-- verdicts:
-- An audit of a release view records what it audited: the policy, its digest,
-- rules and hierarchies (docs/measures.md).
ALTER TABLE privrisk.audit_log ADD COLUMN release jsonb;
-- create_release_view takes a risk profile and an override: CREATE OR REPLACE
-- cannot add parameters, so the 0.14 function goes (its new form is replayed).
DROP FUNCTION privrisk.create_release_view(text, text);

-- suppress: a policy's record suppression (docs/release.md, "Record suppression").
CREATE TABLE privrisk.policy_suppression (
    policy text NOT NULL,
    quasi_identifiers name[] NOT NULL,
    sensitive name,
    constraints jsonb NOT NULL,
    CONSTRAINT policy_suppression_quasi_identifiers_check CHECK ((pg_catalog.cardinality(quasi_identifiers) >= 1))
);
ALTER TABLE ONLY privrisk.policy_suppression ADD CONSTRAINT policy_suppression_pkey PRIMARY KEY (policy);
ALTER TABLE ONLY privrisk.policy_suppression ADD CONSTRAINT policy_suppression_policy_fkey FOREIGN KEY (policy) REFERENCES privrisk.policy(name) ON UPDATE CASCADE ON DELETE CASCADE;
GRANT SELECT ON TABLE privrisk.policy_suppression TO PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('privrisk.policy_suppression', '');
ALTER TABLE privrisk.policy_suppression ENABLE ROW LEVEL SECURITY;
CREATE POLICY source_owner ON privrisk.policy_suppression FOR SELECT USING (privrisk.owns_source(( SELECT p.source
   FROM privrisk.policy p
  WHERE (p.name = policy_suppression.policy))));

-- watch: the catalog of watched release views (docs/watch.md), new in 0.15.
-- include: src/sql/watch/catalog.sql
-- include: src/sql/watch/catalog_rules.sql
-- pseudonym:
-- The pseudonymize rule kind and each policy's pseudonym key (docs/pseudonymization.md).
ALTER TABLE privrisk.policy_rule DROP CONSTRAINT policy_rule_operator_check;
ALTER TABLE privrisk.policy_rule ADD CONSTRAINT policy_rule_operator_check CHECK ((operator = ANY (ARRAY['hide'::text, 'gen'::text, 'pseudonymize'::text])));
-- include: src/sql/pseudonym/catalog.sql
-- include: src/sql/pseudonym/catalog_rules.sql

-- release catalog cache:
-- Each backend caches what releases read from these tables: their triggers tell
-- every backend when they change (docs/release.md, "Catalog cache"). The trigger
-- function is replayed below; it must exist before its triggers.
CREATE FUNCTION privrisk.release_catalog_changed() RETURNS trigger
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_release_catalog_changed';
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

-- search verdict: search_lattice gives a risk profile's verdict from its own read;
-- CREATE OR REPLACE cannot add the parameter, so the 0.14 function goes (its new
-- form is replayed).
DROP FUNCTION privrisk.search_lattice(regclass, text[], text[], text, jsonb, text, boolean);
