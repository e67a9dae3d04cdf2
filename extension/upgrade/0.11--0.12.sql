-- 0.11 -> 0.12: what a 0.11 database needs beyond replaying the current
-- definitions (the Makefile appends every replayable fragment of src/sql and
-- the comments after this file).

-- audit, record_audit, search, lattice and create_policy take one argument
-- more (a risk profile, or what to do with unlabelled columns); run_search
-- passes the profile on. lattice's body depends on run_search: dropped first.
DROP FUNCTION privrisk.lattice(regclass, text[], text[], text, jsonb, text);
DROP FUNCTION privrisk.search(regclass, text[], text[], text, jsonb, text);
DROP FUNCTION privrisk.run_search(regclass, text[], text[], text, jsonb, text, boolean);
DROP FUNCTION privrisk.audit(regclass, text[], text, text[], integer[], jsonb);
DROP PROCEDURE privrisk.record_audit(regclass, text[], text, text[], integer[], jsonb);
DROP FUNCTION privrisk.create_policy(text, regclass);

-- Privacy by default: what a policy's releases do with columns without a label.
ALTER TABLE privrisk.policy ADD COLUMN unlabelled text DEFAULT 'publish'::text NOT NULL;
ALTER TABLE privrisk.policy ADD CONSTRAINT policy_unlabelled_check
    CHECK ((unlabelled = ANY (ARRAY['publish'::text, 'hide'::text])));

-- Risk profiles: their catalog, as a fresh install makes it.
-- include: src/sql/profiles/catalog.sql
