COMMENT ON FUNCTION privrisk.dp_release(source regclass, quasi_identifiers text[], hierarchies text[], epsilon double precision, delta double precision, mechanism text, levels integer[], seed bigint, output text, drop_probability double precision, theta0 double precision, lambda double precision, kappa integer, score text, sensitivity text, leaf_weights double precision[]) IS 'differentially private release under a budget, spent and committed in a transaction of its own before any row is read: safepub (sampling, generalization, suppression under k) or fouad (per-record exponential mechanism)';

COMMENT ON FUNCTION privrisk.dp_sampled_rows(seed bigint, probability double precision, class text[], "rows" bigint) IS 'how many of a class''s rows (its released values, NULL for suppressed; its rows in the source) dp_release with this seed samples (seeded runs are reproducible and not private)';

COMMENT ON FUNCTION privrisk.set_budget(dataset regclass, epsilon double precision, delta double precision) IS 'sets the privacy budget of a table, partitioned table or materialized view (its owner only; never below what was spent; not temporary tables)';

COMMENT ON TABLE privrisk.budget IS 'privacy budget (epsilon, delta) of each source relation and what DP releases spent of it';

COMMENT ON TABLE privrisk.budget_ledger IS 'every spend of a privacy budget: who, when, epsilon, delta, mechanism, parameters';
COMMENT ON EVENT TRIGGER privrisk_forget_dropped_budgets IS 'removes the budget and ledger rows of a dropped relation, so a reused OID starts with no budget';
COMMENT ON SEQUENCE privrisk.budget_ledger_id_seq IS 'ids of privrisk.budget_ledger rows (dumped with the ledger)';

COMMENT ON FUNCTION privrisk.forget_dropped_budgets() IS 'internal: event trigger function removing the budget rows of dropped relations';
COMMENT ON FUNCTION privrisk.dp_parameters(double precision,double precision) IS 'SafePub''s parameters for (epsilon, delta): sampling probability beta, class-size threshold k, and delta_k';
