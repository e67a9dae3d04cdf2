-- 0.14 → 0.15: what a 0.14 database needs beyond the current definitions (extension/README.md).

-- pseudonym:
-- The pseudonymize rule kind and each policy's pseudonym key (docs/pseudonymization.md).
ALTER TABLE privrisk.policy_rule DROP CONSTRAINT policy_rule_operator_check;
ALTER TABLE privrisk.policy_rule ADD CONSTRAINT policy_rule_operator_check CHECK ((operator = ANY (ARRAY['hide'::text, 'gen'::text, 'pseudonymize'::text])));
-- include: src/sql/pseudonym/catalog.sql
-- include: src/sql/pseudonym/catalog_rules.sql
