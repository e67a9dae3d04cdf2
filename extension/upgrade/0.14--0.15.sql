-- 0.14 → 0.15: what a 0.14 database needs beyond the current definitions (extension/README.md).

-- verdicts:
-- An audit of a release view records what it audited: the policy, its digest,
-- rules and hierarchies (docs/measures.md).
ALTER TABLE privrisk.audit_log ADD COLUMN release jsonb;
-- create_release_view takes a risk profile and an override: CREATE OR REPLACE
-- cannot add parameters, so the 0.14 function goes (its new form is replayed).
DROP FUNCTION privrisk.create_release_view(text, text);
