-- Aggregate support functions against hand-made states, from a role with
-- default rights only. Part 1: as installed, no such role can call a support
-- function or build an aggregate on one, and every aggregate still works for
-- it. Part 2: with EXECUTE granted back (as an owner could), every function
-- still refuses a malformed state with a clear error and never writes into
-- what it was given.
CREATE ROLE owner_states LOGIN;
CREATE ROLE attacker_states LOGIN;
CREATE SCHEMA states_owner AUTHORIZATION owner_states;
GRANT USAGE ON SCHEMA states_owner TO attacker_states;

SET ROLE owner_states;
-- Valid states of every SQL-visible kind, owned by another role; the attacker may only read them.
CREATE TABLE states_owner.states (
    id int PRIMARY KEY,
    neg float8[],      -- neg_disclosure_curve: {kmax, MD_0 .. MD_kmax}
    knapsack bigint[], -- ck_*: {kmax, buckets, bits of c, T0[0..kmax], T1[0..kmax]}
    counter bigint[],  -- average_risk, records_at_risk: {rows, classes or rows at risk}
    risk bytea         -- dt_risk, bayes_risk: two exact sums and two counts
);
INSERT INTO states_owner.states VALUES
    (1, '{2,0.25,0.5,0.75}', '{0,1,9221120237041090560,0,-9223372036854775808}', '{10,4}',
     ('\x' || repeat('00', 32) || '0500000000000000' || '0000000000000000')::bytea),
    (2, '{2,0.5,0.25,1}', '{0,2,9221120237041090560,5,-9223372036854775808}', '{6,2}',
     ('\x' || repeat('00', 32) || '0300000000000000' || '0100000000000000')::bytea);
CREATE TABLE states_owner.people (zip text, sex text, disease text);
INSERT INTO states_owner.people
SELECT (ARRAY['130', '148', '131'])[1 + i % 3], (ARRAY['F', 'M'])[1 + i % 2], (ARRAY['flu', 'cancer', 'hiv', NULL])[1 + i % 4]
FROM generate_series(1, 600) AS i;
GRANT SELECT ON states_owner.states, states_owner.people TO attacker_states;
CREATE TEMP TABLE before AS SELECT md5(string_agg(s::text, ';' ORDER BY id)) AS digest FROM states_owner.states AS s;
RESET ROLE;

-- ---- Part 1: the support functions are not PUBLIC ------------------------------------
-- Every support function of every privrisk aggregate (catalog-driven, so a new one is covered too).
CREATE TEMP VIEW support_functions AS
SELECT DISTINCT p.oid, p.oid::regprocedure AS fn
FROM pg_aggregate a
JOIN pg_proc ag ON ag.oid = a.aggfnoid
CROSS JOIN LATERAL (VALUES (a.aggtransfn), (a.aggfinalfn), (a.aggcombinefn), (a.aggserialfn), (a.aggdeserialfn)) AS s(fn)
JOIN pg_proc p ON p.oid = s.fn
WHERE ag.pronamespace = 'privrisk'::regnamespace AND p.pronamespace = 'privrisk'::regnamespace;
GRANT SELECT ON support_functions TO attacker_states;
SELECT count(*) >= 50 AS many_support_functions,
       bool_and(NOT has_function_privilege('attacker_states', oid, 'EXECUTE')) AS none_executable
FROM support_functions;

SET ROLE attacker_states;
SELECT privrisk.neg_combine(neg, neg) FROM states_owner.states;
SELECT privrisk.ck_combine(knapsack, knapsack) FROM states_owner.states;
SELECT privrisk.risk_state_combine(risk, risk) FROM states_owner.states;
SELECT privrisk.neg_final('{}');
SELECT privrisk.hist_deserialize('\x00'::bytea, NULL::internal);
-- An aggregate of one's own over them: refused when it is created (and one over internal
-- states, which could hand one aggregate's state to another's functions, needs a superuser).
CREATE AGGREGATE pg_temp.mine(float8[]) (SFUNC = privrisk.neg_combine, STYPE = float8[], INITCOND = '{}');
CREATE AGGREGATE pg_temp.confused(privrisk.hist) (SFUNC = privrisk.hist_merge_transition, STYPE = internal,
                                                  FINALFUNC = privrisk.entropy_final);
-- The aggregates themselves work for this role, serial and in parallel plans.
CREATE TEMP VIEW measures AS
SELECT count(*) AS classes, privrisk.k_anonymity(h) AS k, privrisk.average_risk(h) AS average,
       privrisk.records_at_risk(h, 0.05) AS at_risk, privrisk.l_diversity(h) AS l, privrisk.t_closeness(h) AS t,
       privrisk.ck_disclosure_curve(h, 2) AS ck_curve, privrisk.ck_safe(h, 0.9, 1) AS ck_safe,
       privrisk.neg_disclosure_curve(h, 2) AS neg_curve, privrisk.ck_worst_case(h, 1) ->> 'max_disclosure' AS witness
FROM (SELECT zip, sex, privrisk.hist(disease) AS h FROM states_owner.people GROUP BY zip, sex) AS c;
CREATE TEMP VIEW others AS
SELECT privrisk.entropy(disease) AS entropy, round(privrisk.mutual_information(zip, disease)::numeric, 12) AS mi,
       privrisk.dt_risk(0.5, (length(zip) + 1)::int8) AS dt, privrisk.bayes_risk(0.25, 1) AS bayes,
       length(privrisk.tuple_tally(zip, sex)) AS tally_bytes,
       (SELECT privrisk.hist_merge(h) FROM (SELECT privrisk.hist(sex) AS h FROM states_owner.people GROUP BY zip) AS c)
           AS merged
FROM states_owner.people;
SELECT * FROM measures;
SELECT * FROM others;
CREATE TEMP TABLE serial AS SELECT * FROM measures;
CREATE TEMP TABLE serial_others AS SELECT * FROM others;
SET parallel_setup_cost = 0;
SET parallel_tuple_cost = 0;
SET min_parallel_table_scan_size = 0;
SET max_parallel_workers_per_gather = 2;
SET parallel_leader_participation = off;
SELECT (SELECT row(m.*)::text FROM measures AS m) = (SELECT row(s.*)::text FROM serial AS s) AS parallel_measures_equal,
       (SELECT row(o.*)::text FROM others AS o) = (SELECT row(s.*)::text FROM serial_others AS s) AS parallel_others_equal;
RESET parallel_setup_cost;
RESET parallel_tuple_cost;
RESET min_parallel_table_scan_size;
RESET max_parallel_workers_per_gather;
RESET parallel_leader_participation;
RESET ROLE;

-- ---- Part 2: hand-made states, with EXECUTE granted back ---------------------------------
DO $$
DECLARE f regprocedure;
BEGIN
    FOR f IN SELECT fn FROM support_functions LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO attacker_states', f);
    END LOOP;
END $$;
SET ROLE attacker_states;

-- The in-place write: a read-only row passed as both arguments of every combine function.
SELECT privrisk.neg_combine(neg, neg) = neg AS same FROM states_owner.states ORDER BY id;
SELECT privrisk.ck_combine(knapsack, knapsack) FROM states_owner.states ORDER BY id;
SELECT privrisk.counter_combine(counter, counter) FROM states_owner.states ORDER BY id;
SELECT length(privrisk.risk_state_combine(risk, risk)) FROM states_owner.states ORDER BY id;
SELECT length(privrisk.dt_risk_add(risk, 0.5, 2)) FROM states_owner.states ORDER BY id;
SELECT length(privrisk.bayes_risk_add(risk, 0.5, 2)) FROM states_owner.states ORDER BY id;
SELECT privrisk.neg_combine(a.neg, b.neg) FROM states_owner.states AS a, states_owner.states AS b
WHERE a.id = 1 AND b.id = 2;
-- An aggregate of one's own that updates a state in place: the state is its own copy.
CREATE AGGREGATE pg_temp.neg_max(float8[]) (SFUNC = privrisk.neg_combine, STYPE = float8[]);
CREATE AGGREGATE pg_temp.knapsack_merge(bigint[]) (SFUNC = privrisk.ck_combine, STYPE = bigint[]);
CREATE AGGREGATE pg_temp.risk_merge(bytea) (SFUNC = privrisk.risk_state_combine, STYPE = bytea);
SELECT pg_temp.neg_max(neg), pg_temp.knapsack_merge(knapsack), length(pg_temp.risk_merge(risk))
FROM states_owner.states;
SELECT pg_temp.neg_max(neg ORDER BY id DESC) FROM states_owner.states;

-- neg_final and neg_combine: shape, length, values.
SELECT privrisk.neg_final('{1,0.25,0.5}');
SELECT privrisk.neg_final('{}');
SELECT privrisk.neg_final('{1,0.25,NULL}');
SELECT privrisk.neg_final('{{1,0.25},{0.5,0.5}}');
SELECT privrisk.neg_final('[5:7]={1,0.25,0.5}');
SELECT privrisk.neg_final(array_fill(0.5::float8, ARRAY[2000000]));
SELECT privrisk.neg_final('{5,0.25,0.5}');
SELECT privrisk.neg_final('{-1}');
SELECT privrisk.neg_final('{0.5,0.25,0.5}');
SELECT privrisk.neg_final('{1,NaN,0.5}');
SELECT privrisk.neg_final('{1,Infinity,0.5}');
SELECT privrisk.neg_final('{1,-0.25,0.5}');
SELECT privrisk.neg_final('{1,0.25,1.5}');
SELECT privrisk.neg_combine('{1,0.25,0.5}', '{}');
SELECT privrisk.neg_combine('{}', '{1,0.25,0.5}');
SELECT privrisk.neg_combine('{1,0.25,0.5}', '{2,0.25,0.5,0.5}');
SELECT privrisk.neg_combine('{1,0.25,0.5}', '[0:2]={1,0.25,0.5}');
SELECT privrisk.neg_combine('{1,0.25,0.5}', '{1,NaN,0.5}');
SELECT privrisk.neg_combine(array_fill(0.5::float8, ARRAY[2000000]), '{1,0.25,0.5}');
SELECT privrisk.neg_combine('{1,0.25,0.5}', array_fill(0.5::float8, ARRAY[2, 2]));
SELECT privrisk.neg_combine('{1,0.25,0.5}', NULL), privrisk.neg_combine(NULL, '{1,0.25,0.5}');
SELECT privrisk.neg_transition('{1,0.25,0.5}', '[["a", 1]]', 1);
CREATE AGGREGATE pg_temp.neg_bad(privrisk.hist, int) (SFUNC = privrisk.neg_transition, STYPE = float8[], INITCOND = '{}');
SELECT pg_temp.neg_bad(h, 1) FROM (VALUES ('[["a", 2]]'::privrisk.hist)) AS v(h);
CREATE AGGREGATE pg_temp.neg_bad2(privrisk.hist, int) (SFUNC = privrisk.neg_transition, STYPE = float8[],
                                                       INITCOND = '[3:5]={1,0,0}');
SELECT pg_temp.neg_bad2(h, 1) FROM (VALUES ('[["a", 2]]'::privrisk.hist)) AS v(h);

-- The (c,k) knapsack: ck_combine and the three finals.
SELECT privrisk.ck_curve_final('{0,1,9221120237041090560,0,-9223372036854775808}');
SELECT privrisk.ck_max_final('{1,1,9221120237041090560,0,5,-9223372036854775808,9223372036854775807}');
SELECT privrisk.ck_safe_final('{0,1,4602678819172646912,0,-9223372036854775808}', NULL, NULL, NULL);
SELECT privrisk.ck_curve_final('{}');
SELECT privrisk.ck_curve_final('{0,1,0,0,NULL}');
SELECT privrisk.ck_curve_final('{{0,1,0,0,0},{0,1,0,0,0}}');
SELECT privrisk.ck_curve_final('[5:9]={0,1,0,0,0}');
SELECT privrisk.ck_curve_final(array_fill(0::bigint, ARRAY[2000000]));
SELECT privrisk.ck_curve_final('{0,1,0,0}');
SELECT privrisk.ck_curve_final('{1,1,0,0,0}');
SELECT privrisk.ck_curve_final('{-1,1,0,0,0}');
SELECT privrisk.ck_max_final('{4294967296,1,0,0,0}');
SELECT privrisk.ck_max_final('{0,-1,9221120237041090560,0,0}');
SELECT privrisk.ck_safe_final('{0,1,4611686018427387904,0,0}', NULL, NULL, NULL);
SELECT privrisk.ck_max_final('{0,1,9221120237041090560,0,4611686018427387904}');
SELECT privrisk.ck_combine('{0,1,9221120237041090560,0,0}', '{1,1,9221120237041090560,0,0,0,0}');
SELECT privrisk.ck_combine('{0,1,9221120237041090560,0,0}', '{0,1,0,0,NULL}');
SELECT privrisk.ck_combine('{0,1,0}', '{0,1,9221120237041090560,0,0}');
SELECT privrisk.ck_combine('{0,9223372036854775807,9221120237041090560,0,0}', '{0,1,9221120237041090560,0,0}');
SELECT privrisk.ck_transition('{0,1,0,0,0}', '[["a", 1]]', 0);
CREATE AGGREGATE pg_temp.ck_bad(privrisk.hist, int) (SFUNC = privrisk.ck_transition, STYPE = bigint[], INITCOND = '{0,0,0}');
SELECT pg_temp.ck_bad(h, 0) FROM (VALUES ('[["a", 2]]'::privrisk.hist)) AS v(h);
CREATE AGGREGATE pg_temp.ck_bad2(privrisk.hist, int) (SFUNC = privrisk.ck_transition, STYPE = bigint[],
                                                      INITCOND = '{{0,0,0,0,0}}');
SELECT pg_temp.ck_bad2(h, 0) FROM (VALUES ('[["a", 2]]'::privrisk.hist)) AS v(h);

-- The counters of average_risk and records_at_risk.
SELECT privrisk.counter_ratio_final('{4,2}');
SELECT privrisk.counter_ratio_final('{}');
SELECT privrisk.counter_ratio_final('{4,NULL}');
SELECT privrisk.counter_ratio_final('{{4,2}}');
SELECT privrisk.counter_ratio_final('[0:1]={4,2}');
SELECT privrisk.counter_ratio_final('{4,2,1}');
SELECT privrisk.counter_ratio_final(array_fill(1::bigint, ARRAY[2000000]));
SELECT privrisk.counter_ratio_final('{-4,2}');
SELECT privrisk.counter_ratio_final('{4,-2}');
SELECT privrisk.prosecutor_final(4), privrisk.prosecutor_final(NULL);
SELECT privrisk.prosecutor_final(0);
SELECT privrisk.prosecutor_final(-5);
SELECT privrisk.counter_combine('{4,2}', '{4,2}');
SELECT privrisk.average_risk_transition('{4,2}', '[["a", 1]]');
SELECT privrisk.records_at_risk_transition('{4,2}', '[["a", 1]]', 0.5);
CREATE AGGREGATE pg_temp.avg_bad(privrisk.hist) (SFUNC = privrisk.average_risk_transition, STYPE = bigint[],
                                                 INITCOND = '{-5,0}');
SELECT pg_temp.avg_bad(h) FROM (VALUES ('[["a", 2]]'::privrisk.hist)) AS v(h);
CREATE AGGREGATE pg_temp.avg_bad2(privrisk.hist) (SFUNC = privrisk.average_risk_transition, STYPE = bigint[],
                                                  INITCOND = '{0}');
SELECT pg_temp.avg_bad2(h) FROM (VALUES ('[["a", 2]]'::privrisk.hist)) AS v(h);

-- The risk states of dt_risk and bayes_risk.
SELECT privrisk.risk_state_mean(risk) FROM states_owner.states ORDER BY id;
SELECT privrisk.risk_state_mean('\x'::bytea);
SELECT privrisk.risk_state_mean(('\x' || repeat('00', 47))::bytea);
SELECT privrisk.risk_state_mean(('\x' || repeat('00', 49))::bytea);
SELECT privrisk.risk_state_mean(('\x' || repeat('00', 2000000))::bytea);
SELECT privrisk.risk_state_mean(('\x' || repeat('00', 32) || 'ffffffffffffffff' || '0000000000000000')::bytea);
SELECT privrisk.risk_state_mean(('\x' || repeat('00', 32) || '0100000000000000' || '0200000000000000')::bytea);
SELECT privrisk.risk_state_mean(('\x' || repeat('00', 32) || '0100000000000000' || 'ffffffffffffffff')::bytea);
SELECT privrisk.risk_state_combine(('\x' || repeat('00', 47))::bytea, ('\x' || repeat('00', 48))::bytea);
SELECT privrisk.risk_state_combine(('\x' || repeat('00', 48))::bytea, ('\x' || repeat('00', 47))::bytea);
SELECT privrisk.risk_state_combine(NULL, ('\x' || repeat('00', 47))::bytea);
SELECT privrisk.risk_state_combine(('\x' || repeat('00', 32) || 'ffffffffffffff7f' || '0000000000000000')::bytea,
                                   ('\x' || repeat('00', 32) || '0100000000000000' || '0000000000000000')::bytea);
SELECT privrisk.dt_risk_add(('\x' || repeat('00', 3))::bytea, 0.5, 1);
SELECT privrisk.bayes_risk_add(('\x' || repeat('00', 32) || '0100000000000000' || '0200000000000000')::bytea, 0.5, 1);

-- Functions over internal states: no SQL expression yields a value of type internal, not
-- even NULL, so none of them can be given one from SQL (they also refuse to run outside
-- an aggregate).
SELECT privrisk.hist_deserialize('\x00'::bytea, NULL::internal);
SELECT privrisk.class_set_deserialize('\x00'::bytea, NULL::internal);
SELECT privrisk.ck_worst_case_deserialize('\x00'::bytea, NULL::internal);
SELECT privrisk.value_counts_deserialize('\x00'::bytea, NULL::internal);
SELECT privrisk.tuple_tally_deserialize('\x00'::bytea, NULL::internal);
SELECT privrisk.hist_transition(NULL::internal, 1);
SELECT privrisk.hist_combine(NULL::internal, NULL::internal);
SELECT privrisk.class_set_transition(NULL::internal, '[["a", 1]]');
SELECT privrisk.class_set_combine(NULL::internal, NULL::internal);
SELECT privrisk.ck_worst_case_transition(NULL::internal, '[["a", 1]]', 1);
SELECT privrisk.ck_worst_case_combine(NULL::internal, NULL::internal);
SELECT privrisk.value_counts_transition(NULL::internal, 1);
SELECT privrisk.pair_counts_transition(NULL::internal, 1, 2);
SELECT privrisk.value_counts_combine(NULL::internal, NULL::internal);
SELECT privrisk.tuple_tally_transition(NULL::internal, 1);
SELECT privrisk.tuple_tally_combine(NULL::internal, NULL::internal);
SELECT privrisk.hist_merge_transition(NULL::internal, '[["a", 1]]');
SELECT privrisk.hist_final(NULL::internal);
SELECT privrisk.entropy_final(NULL::internal);
SELECT privrisk.t_closeness_final(NULL::internal);
SELECT privrisk.ck_worst_case_final(NULL::internal);
SELECT privrisk.tuple_tally_final(NULL::internal);
SELECT privrisk.hist_serialize(NULL::internal);

-- privrisk.hist input: malformed or hostile text is an error.
SELECT '[["a", -1]]'::privrisk.hist;
SELECT '[["a", 1], ["a", 2]]'::privrisk.hist;
SELECT '[["a", 1]'::privrisk.hist;
SELECT '\x0100'::privrisk.hist;
SELECT '\x0100'::bytea::text::privrisk.hist;
-- Hand-made counts for value_counts_merge (what shards send for an entropy): refused, naming
-- what is wrong; a NULL is no counts.
SELECT privrisk.value_counts_merge(NULL::bytea) IS NULL AS no_counts;
SELECT privrisk.value_counts_merge('\x'::bytea);
SELECT privrisk.value_counts_merge('\x02'::bytea);
SELECT privrisk.value_counts_merge('\x00ffffffffffffffff'::bytea);
SELECT privrisk.value_counts_merge(('\x00' || '0100000000000000' || repeat('00', 16) || 'ffffffffffffffff')::bytea);
SELECT privrisk.value_counts_merge(c) FROM (SELECT privrisk.value_counts(1) UNION ALL SELECT privrisk.value_counts(1, 2)) AS v(c);
SELECT privrisk.hist_size(('[' || string_agg(format('["v%s", 1]', i), ', ') || ']')::privrisk.hist)
FROM generate_series(1, 100000) AS i;
RESET ROLE;

-- Nothing the attacker did changed the owner's rows.
SET ROLE owner_states;
SELECT (SELECT md5(string_agg(s::text, ';' ORDER BY id)) FROM states_owner.states AS s) = digest AS unchanged FROM before;
RESET ROLE;

DROP TABLE before;
DROP VIEW support_functions;
DROP SCHEMA states_owner CASCADE;
DROP OWNED BY attacker_states;
DROP ROLE attacker_states;
DROP ROLE owner_states;
