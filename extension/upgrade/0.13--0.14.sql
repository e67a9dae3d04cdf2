-- 0.13 -> 0.14: what a 0.13 database needs beyond replaying the current
-- definitions (the Makefile appends every replayable fragment of src/sql and
-- the comments after this file).

-- Policies are named per schema (the source's, when the policy was made): the
-- key is schema.name, as quote_ident writes each part; base_name is the name
-- alone. The rules, registrations and bound columns follow the key (ON UPDATE
-- CASCADE).
ALTER TABLE privrisk.policy ADD COLUMN base_name text;
UPDATE privrisk.policy p SET base_name = p.name;
UPDATE privrisk.policy p
   SET name = pg_catalog.quote_ident(n.nspname) OPERATOR(pg_catalog.||) '.' OPERATOR(pg_catalog.||) pg_catalog.quote_ident(p.base_name)
  FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid OPERATOR(pg_catalog.=) c.relnamespace
 WHERE c.oid OPERATOR(pg_catalog.=) p.source::pg_catalog.oid;
ALTER TABLE privrisk.policy ALTER COLUMN base_name SET NOT NULL;
ALTER TABLE privrisk.policy DROP CONSTRAINT policy_name_check;
ALTER TABLE privrisk.policy ADD CONSTRAINT policy_name_check CHECK (((name <> ''::text) AND (octet_length(name) <= 600)));
ALTER TABLE privrisk.policy ADD CONSTRAINT policy_base_name_check CHECK (((base_name <> ''::text) AND (octet_length(base_name) <= 200)));

-- Rules bind their column by number, as conditions do; release views record
-- the source columns they release; the source's columns as approved.
ALTER TABLE privrisk.policy_rule ADD COLUMN column_number smallint;
UPDATE privrisk.policy_rule r SET column_number = a.attnum
  FROM privrisk.policy p, pg_catalog.pg_attribute a
 WHERE p.name OPERATOR(pg_catalog.=) r.policy AND a.attrelid OPERATOR(pg_catalog.=) p.source::pg_catalog.oid
   AND a.attname OPERATOR(pg_catalog.=) r.column_name AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped;
ALTER TABLE privrisk.release_view ADD COLUMN column_numbers smallint[];
ALTER TABLE privrisk.release_view ADD COLUMN column_names name[];
CREATE TABLE privrisk.policy_column (
    policy text NOT NULL,
    column_number smallint NOT NULL,
    column_name name NOT NULL,
    column_type regtype NOT NULL,
    guarded boolean NOT NULL
);
ALTER TABLE ONLY privrisk.policy_column ADD CONSTRAINT policy_column_pkey PRIMARY KEY (policy, column_number);
ALTER TABLE ONLY privrisk.policy_column ADD CONSTRAINT policy_column_policy_fkey FOREIGN KEY (policy) REFERENCES privrisk.policy(name) ON UPDATE CASCADE ON DELETE CASCADE;
GRANT SELECT ON TABLE privrisk.policy_column TO PUBLIC;
SELECT pg_catalog.pg_extension_config_dump('privrisk.policy_column', '');
ALTER TABLE privrisk.policy_column ENABLE ROW LEVEL SECURITY;
CREATE POLICY source_owner ON privrisk.policy_column FOR SELECT USING (privrisk.owns_source(( SELECT p.source
   FROM privrisk.policy p
  WHERE (p.name = policy_column.policy))));
-- The columns of every policy's source as they are now, approved as the 0.13
-- releases used them (guarded: a rule's column or a labelled one).
INSERT INTO privrisk.policy_column(policy, column_number, column_name, column_type, guarded)
SELECT p.name, a.attnum, a.attname, a.atttypid::pg_catalog.regtype,
       EXISTS (SELECT 1 FROM privrisk.policy_rule r WHERE r.policy OPERATOR(pg_catalog.=) p.name
                  AND r.column_number OPERATOR(pg_catalog.=) a.attnum)
       OR EXISTS (SELECT 1 FROM pg_catalog.pg_seclabel l WHERE l.provider OPERATOR(pg_catalog.=) 'privrisk'
                  AND l.classoid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass
                  AND l.objoid OPERATOR(pg_catalog.=) a.attrelid AND l.objsubid OPERATOR(pg_catalog.=) a.attnum)
  FROM privrisk.policy p JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) p.source::pg_catalog.oid
 WHERE a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped;
-- The views made by 0.13 (create_release_view is the only way in) release the source columns of their names.
UPDATE privrisk.release_view v
   SET column_names = c.names, column_numbers = c.numbers
  FROM (SELECT v2.view, pg_catalog.array_agg(a.attname ORDER BY a.attnum) AS names,
               pg_catalog.array_agg(s.attnum ORDER BY a.attnum) AS numbers
          FROM privrisk.release_view v2
          JOIN privrisk.policy p ON p.name OPERATOR(pg_catalog.=) v2.policy
          JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) v2.view::pg_catalog.oid
           AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT a.attisdropped
          JOIN pg_catalog.pg_attribute s ON s.attrelid OPERATOR(pg_catalog.=) p.source::pg_catalog.oid
           AND s.attname OPERATOR(pg_catalog.=) a.attname AND NOT s.attisdropped
         GROUP BY v2.view) AS c
 WHERE c.view OPERATOR(pg_catalog.=) v.view;

-- drop_policy takes cascade: a policy with release views drops only with them.
DROP FUNCTION privrisk.drop_policy(text);

-- labels: an event trigger loads the library before every SECURITY LABEL, so a
-- schema-level or table-level restore (no CREATE EXTENSION in its dump) keeps
-- its labels; replaces 0.13's NOTICE about session_preload_libraries.
CREATE OR REPLACE FUNCTION privrisk.load_label_provider() RETURNS event_trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'privrisk_load_label_provider';
-- include: src/sql/labels/catalog_rules.sql

-- report and risk profiles:
-- The page is written by report_page() from data; the SQL helpers that escaped HTML at each call site go.
DROP FUNCTION privrisk.report_verdict(text, jsonb);
DROP FUNCTION privrisk.html_text(text);
DROP FUNCTION privrisk.report_asset(text);
-- A profile's owner by identity: the role of that name now (a 0.13 database cannot tell whether it
-- is the role that made the profile), orphaned when there is none; its name is kept beside it.
ALTER TABLE privrisk.risk_profile ADD COLUMN owner_name name;
UPDATE privrisk.risk_profile SET owner_name = owner;
ALTER TABLE privrisk.risk_profile ALTER COLUMN owner_name SET NOT NULL,
    ALTER COLUMN owner DROP NOT NULL,
    ALTER COLUMN owner TYPE regrole USING pg_catalog.to_regrole(pg_catalog.quote_ident(owner::pg_catalog.text));
-- Names unique regardless of case: 0.13 accepted 'Clinic' beside 'clinic'. Such a pair stops the
-- update, naming it, rather than one of them being renamed or dropped behind its owners' backs.
DO $$
DECLARE
    pair text;
BEGIN
    SELECT string_agg(names, '; ') INTO pair
      FROM (SELECT string_agg(pg_catalog.quote_literal(p.name), ' and ' ORDER BY p.name) AS names
              FROM privrisk.risk_profile p GROUP BY pg_catalog.lower(p.name COLLATE "C") HAVING count(*) > 1) AS d;
    IF pair IS NOT NULL THEN
        RAISE EXCEPTION 'risk profiles % differ only by case: drop or rename all but one before updating privrisk to 0.14', pair
            USING ERRCODE = 'unique_violation';
    END IF;
END $$;
CREATE UNIQUE INDEX risk_profile_name_key ON privrisk.risk_profile USING btree (lower((name COLLATE "C")));
-- include: src/sql/profiles/risk_profile_restored.sql
-- include: src/sql/profiles/catalog_rules.sql
