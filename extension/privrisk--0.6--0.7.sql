-- privrisk 0.6 -> 0.7: differentially private releases under a privacy budget
-- (SPEC §4.7).
\echo Use "ALTER EXTENSION privrisk UPDATE TO '0.7'" to load this file. \quit

------------------------------------------------------------------------------
-- Budgets: one per source relation, spent by every DP release of it. Written
-- only by set_budget() and dp_release() (as the tables' owner), readable by all.
------------------------------------------------------------------------------
CREATE TABLE privrisk.budget (
    relation regclass PRIMARY KEY,
    epsilon float8 NOT NULL CHECK (epsilon > 0 AND epsilon < 'Infinity'),
    delta float8 NOT NULL CHECK (delta >= 0 AND delta < 1),
    spent_epsilon float8 NOT NULL DEFAULT 0 CHECK (spent_epsilon >= 0),
    spent_delta float8 NOT NULL DEFAULT 0 CHECK (spent_delta >= 0),
    set_by name NOT NULL,
    set_at timestamptz NOT NULL DEFAULT now()
);
COMMENT ON TABLE privrisk.budget IS 'privacy budget (epsilon, delta) of each source relation and what DP releases spent of it';

CREATE TABLE privrisk.budget_ledger (
    id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    relation regclass NOT NULL,
    spent_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    spent_by name NOT NULL,
    epsilon float8 NOT NULL,
    delta float8 NOT NULL,
    mechanism text NOT NULL,
    parameters jsonb NOT NULL,
    private boolean NOT NULL   -- false for a seeded (reproducible) run
);
COMMENT ON TABLE privrisk.budget_ledger IS 'every spend of a privacy budget: who, when, epsilon, delta, mechanism, parameters';

SELECT pg_catalog.pg_extension_config_dump('privrisk.budget', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.budget_ledger', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.budget_ledger_id_seq', '');
REVOKE ALL ON privrisk.budget, privrisk.budget_ledger FROM PUBLIC;
GRANT SELECT ON privrisk.budget, privrisk.budget_ledger TO PUBLIC;

CREATE FUNCTION privrisk.set_budget(dataset regclass, epsilon float8, delta float8) RETURNS void
    LANGUAGE c VOLATILE PARALLEL UNSAFE AS 'MODULE_PATHNAME', 'privrisk_set_budget';
COMMENT ON FUNCTION privrisk.set_budget(regclass, float8, float8) IS
    'sets the privacy budget of a relation (its owner only; never below what was spent)';

------------------------------------------------------------------------------
-- dp_release: a differentially private release of a relation; spends (epsilon,
-- delta) from the relation's budget in the caller's transaction. Returns SETOF
-- record: give a column definition list of text columns, one per
-- quasi-identifier (plus a bigint count with output => 'classes').
--   safepub: levels (the node) required; fouad: drop_probability required,
--   theta0, lambda, kappa, score (aggregate | risk), sensitivity (uniform |
--   harmonic) and leaf_weights optional.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.dp_release(source regclass, quasi_identifiers text[], hierarchies text[],
                                    epsilon float8, delta float8, mechanism text DEFAULT 'safepub',
                                    levels int[] DEFAULT NULL, seed int8 DEFAULT NULL, output text DEFAULT 'rows',
                                    drop_probability float8 DEFAULT NULL, theta0 float8 DEFAULT NULL,
                                    lambda float8 DEFAULT NULL, kappa int DEFAULT NULL, score text DEFAULT NULL,
                                    sensitivity text DEFAULT NULL, leaf_weights float8[] DEFAULT NULL)
    RETURNS SETOF record
    LANGUAGE c VOLATILE PARALLEL UNSAFE ROWS 1000 AS 'MODULE_PATHNAME', 'privrisk_dp_release';
COMMENT ON FUNCTION privrisk.dp_release(regclass, text[], text[], float8, float8, text, int[], int8, text,
                                        float8, float8, float8, int, text, text, float8[]) IS
    'differentially private release under a budget: safepub (sampling, generalization, suppression under k) or fouad (per-record exponential mechanism)';

CREATE FUNCTION privrisk.dp_sampled(seed int8, probability float8, tableoid oid, ctid tid) RETURNS boolean
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_dp_sampled';
COMMENT ON FUNCTION privrisk.dp_sampled(int8, float8, oid, tid) IS
    'whether dp_release with this seed samples the row (seeded runs are reproducible and not private)';
