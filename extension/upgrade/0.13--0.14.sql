-- 0.13 -> 0.14: what a 0.13 database needs beyond replaying the current
-- definitions (the Makefile appends every replayable fragment of src/sql and
-- the comments after this file).

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
