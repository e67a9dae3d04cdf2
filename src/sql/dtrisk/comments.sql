COMMENT ON FUNCTION privrisk.check_sensitivity_weights(hierarchy text, weights jsonb) IS 'validates per-node sensitivity weights of a tree hierarchy: non-negative, not growing toward the root, root 0';

COMMENT ON FUNCTION privrisk.check_weight_budget(weights double precision[], budget double precision, mode text) IS 'whether an entity''s weights meet its budget: sum = budget (exactly) or sum <= budget (at_most)';

COMMENT ON FUNCTION privrisk.match_counts(released regclass, dictionary regclass, mapping jsonb, mode text, threshold double precision, levels integer[]) IS '|rho(y, theta)| for every distinct released tuple (generalized to levels when given): the dictionary entries consistent with it';

COMMENT ON FUNCTION privrisk.sensitivity(vals text[], hierarchies text[], leaf_weights double precision[], family text) IS 'Phi of a released record with harmonic value weights (family multiplicative or linear); NULL is bottom';

COMMENT ON AGGREGATE privrisk.dt_risk(phi double precision, matches bigint, rows bigint) IS 'the mean loss with each distinct released tuple weighted by its rows (match_counts output)';

COMMENT ON AGGREGATE privrisk.dt_risk_max(phi double precision, matches bigint) IS 'the worst released record''s loss';

COMMENT ON FUNCTION privrisk.dictionary_risk(source regclass, dictionary regclass, mapping jsonb, leaf_weights double precision[], levels integer[], family text) IS 'dt_risk of a relation (at levels) against a dictionary: risk, max_loss, rows, unidentified_rows';

COMMENT ON FUNCTION privrisk.harmonic_weight(hierarchy text, node text, leaf_weight double precision) IS 'the modified-harmonic-mean weight of a hierarchy node: leaf_weight / leaves under it; bottom (NULL) 0';

COMMENT ON FUNCTION privrisk.harmonic_weights(hierarchy text, leaf_weight double precision) IS 'every node of a tree hierarchy with its harmonic weight leaf_weight / leaves under it; the root 0';

COMMENT ON FUNCTION privrisk.independent_top_k(weights double precision[], frequencies double precision[], dictionary_size bigint, k integer) IS 'the k attributes whose disclosure costs least under independence (paper 4.2): factors e^w/f, loss (1/N) prod';

COMMENT ON FUNCTION privrisk.loss(phi double precision, matches bigint, psi double precision) IS 'decision-theoretic loss: phi/matches + (1 - 1/matches) psi; psi when nothing matches; 0 * inf = 0';

COMMENT ON FUNCTION privrisk.match_count(released_values text[], dictionary regclass, mapping jsonb, mode text, threshold double precision) IS '|rho(y, theta)| of one released record (reads the dictionary on each call; match_counts does a table at once)';

COMMENT ON FUNCTION privrisk.optimal_disclosure(record text[], dictionary regclass, mapping jsonb, leaf_weights double precision[], bound double precision, method text, problem text, lambda double precision, family text, seed bigint) IS 'the optimal disclosure of one record against a dictionary: levels, released values, risk, utility, nodes visited';

COMMENT ON FUNCTION privrisk.optimal_disclosures(source regclass, dictionary regclass, mapping jsonb, leaf_weights double precision[], bound double precision, method text, problem text, lambda double precision, family text, seed bigint) IS 'the optimal disclosure of every distinct source tuple (per-record levels the release can publish)';

COMMENT ON FUNCTION privrisk.optimal_generalization(source regclass, dictionary regclass, mapping jsonb, leaf_weights double precision[], bound double precision, method text, problem text, lambda double precision, family text, seed bigint) IS 'the full-domain node of least mean risk against a dictionary with mean utility >= bound (or the other forms); apply_generalization publishes it';

COMMENT ON FUNCTION privrisk.risk_bound_holds(source regclass, estimated regclass, true_dictionary regclass, id_column text, mapping jsonb) IS 'Proposition 1''s conditions: unique ids, estimated << true dictionary, a counterpart for every source record';

COMMENT ON FUNCTION privrisk.sensitivity_linear(weights double precision[], disclosed boolean[]) IS 'Phi_1 (Phi_2 with an entity''s own weights): the sum of the disclosed attributes'' weights';

COMMENT ON FUNCTION privrisk.sensitivity_multiplicative(weights double precision[], disclosed boolean[]) IS 'Phi_4: exp of the sum of the disclosed weights (1 for a fully suppressed record)';

COMMENT ON FUNCTION privrisk.sensitivity_pairwise(weights double precision[], pair_weights double precision[], disclosed boolean[]) IS 'Phi_3: disclosed weights plus the weights of disclosed pairs (an m x m matrix, upper triangle)';

COMMENT ON AGGREGATE privrisk.bayes_risk(risk double precision, prior double precision) IS 'Bayes risk over candidate dictionaries: sum(prior * risk) / sum(prior)';

COMMENT ON AGGREGATE privrisk.dt_risk(phi double precision, matches bigint) IS 'decision-theoretic risk R(delta, theta): the mean loss over all released rows (exact sums: order-independent)';

COMMENT ON FUNCTION privrisk.dictionary_options(jsonb,text[],text[]) IS 'internal: checks and resolves the mapping and weights options of the dictionary functions';
COMMENT ON FUNCTION privrisk.bayes_risk_add(bytea,double precision,double precision) IS 'internal: transition function of aggregate bayes_risk';
COMMENT ON FUNCTION privrisk.dt_risk_add(bytea,double precision,bigint) IS 'internal: transition function of aggregate dt_risk';
COMMENT ON FUNCTION privrisk.dt_risk_add(bytea,double precision,bigint,bigint) IS 'internal: transition function of aggregate dt_risk';
COMMENT ON FUNCTION privrisk.dt_risk_max_add(double precision,double precision,bigint) IS 'internal: transition function of aggregate dt_risk_max';
COMMENT ON FUNCTION privrisk.risk_state_combine(bytea,bytea) IS 'internal: combine function of aggregate bayes_risk, dt_risk';
COMMENT ON FUNCTION privrisk.risk_state_mean(bytea) IS 'internal: final function of aggregate bayes_risk, dt_risk';
