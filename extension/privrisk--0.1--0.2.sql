-- privrisk 0.2: class histograms and the risk and privacy measures (SPEC §4.3).
-- CREATE EXTENSION at 0.2 runs privrisk--0.1.sql and then this script.
\echo Use "ALTER EXTENSION privrisk UPDATE TO '0.2'" to load this file. \quit

------------------------------------------------------------------------------
-- privrisk.hist: the sensitive histogram of one class. Text form is a JSON
-- array of [value, count] pairs, ⊥ as null: [["Sales", 2], [null, 1]].
------------------------------------------------------------------------------
CREATE TYPE privrisk.hist;
CREATE FUNCTION privrisk.hist_in(cstring) RETURNS privrisk.hist
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_in';
CREATE FUNCTION privrisk.hist_out(privrisk.hist) RETURNS cstring
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_out';
CREATE FUNCTION privrisk.hist_recv(internal) RETURNS privrisk.hist
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_recv';
CREATE FUNCTION privrisk.hist_send(privrisk.hist) RETURNS bytea
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_send';
CREATE TYPE privrisk.hist (
    INPUT = privrisk.hist_in, OUTPUT = privrisk.hist_out,
    RECEIVE = privrisk.hist_recv, SEND = privrisk.hist_send,
    INTERNALLENGTH = VARIABLE, STORAGE = extended, ALIGNMENT = int4
);
COMMENT ON TYPE privrisk.hist IS 'counts per sensitive value of one equivalence class; NULL counts as ⊥';

-- The text form is JSON, so hist::text::jsonb works.
CREATE FUNCTION privrisk.hist_size(privrisk.hist) RETURNS bigint
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_size';
CREATE FUNCTION privrisk.hist_distinct(privrisk.hist) RETURNS int
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_distinct';

------------------------------------------------------------------------------
-- Level 1: privrisk.hist(sensitive) per class (GROUP BY the released QIs).
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.hist_transition(internal, anyelement) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_transition';
CREATE FUNCTION privrisk.hist_transition(internal, text) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_transition';
CREATE FUNCTION privrisk.hist_transition(internal, varchar) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_transition';
CREATE FUNCTION privrisk.hist_transition(internal, bpchar) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_transition';
CREATE FUNCTION privrisk.hist_transition(internal, name) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_transition';
CREATE FUNCTION privrisk.hist_transition_star(internal) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_transition_star';
CREATE FUNCTION privrisk.hist_combine(internal, internal) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_combine';
CREATE FUNCTION privrisk.hist_serialize(internal) RETURNS bytea
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_serialize';
CREATE FUNCTION privrisk.hist_deserialize(bytea, internal) RETURNS internal
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_deserialize';
CREATE FUNCTION privrisk.hist_final(internal) RETURNS privrisk.hist
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_final';

CREATE AGGREGATE privrisk.hist(sensitive anyelement) (
    SFUNC = privrisk.hist_transition, STYPE = internal, FINALFUNC = privrisk.hist_final,
    COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize,
    DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE
);
-- A one-argument call named like a type is read as a cast when no overload
-- matches the argument's type exactly; these exact overloads keep
-- privrisk.hist(text_column) an aggregate for the string types.
CREATE AGGREGATE privrisk.hist(sensitive text) (
    SFUNC = privrisk.hist_transition, STYPE = internal, FINALFUNC = privrisk.hist_final,
    COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize,
    DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE
);
CREATE AGGREGATE privrisk.hist(sensitive varchar) (
    SFUNC = privrisk.hist_transition, STYPE = internal, FINALFUNC = privrisk.hist_final,
    COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize,
    DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE
);
CREATE AGGREGATE privrisk.hist(sensitive bpchar) (
    SFUNC = privrisk.hist_transition, STYPE = internal, FINALFUNC = privrisk.hist_final,
    COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize,
    DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE
);
CREATE AGGREGATE privrisk.hist(sensitive name) (
    SFUNC = privrisk.hist_transition, STYPE = internal, FINALFUNC = privrisk.hist_final,
    COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize,
    DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE
);
CREATE AGGREGATE privrisk.hist(*) (
    SFUNC = privrisk.hist_transition_star, STYPE = internal, FINALFUNC = privrisk.hist_final,
    COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize,
    DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE
);

------------------------------------------------------------------------------
-- Level 2: one hist per class in, the release's level out. NULL hists are
-- ignored; no classes gives NULL.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.k_transition(bigint, privrisk.hist) RETURNS bigint
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_k_transition';
CREATE FUNCTION privrisk.prosecutor_final(bigint) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_prosecutor_final';
-- k-anonymity: the smallest class.
CREATE AGGREGATE privrisk.k_anonymity(privrisk.hist) (
    SFUNC = privrisk.k_transition, STYPE = bigint, COMBINEFUNC = pg_catalog.int8smaller, PARALLEL = SAFE
);
-- Prosecutor risk: max over records of 1/|class| = 1/k.
CREATE AGGREGATE privrisk.prosecutor_risk(privrisk.hist) (
    SFUNC = privrisk.k_transition, STYPE = bigint, FINALFUNC = privrisk.prosecutor_final,
    COMBINEFUNC = pg_catalog.int8smaller, PARALLEL = SAFE
);

CREATE FUNCTION privrisk.average_risk_transition(bigint[], privrisk.hist) RETURNS bigint[]
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_average_risk_transition';
CREATE FUNCTION privrisk.records_at_risk_transition(bigint[], privrisk.hist, float8) RETURNS bigint[]
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_records_at_risk_transition';
CREATE FUNCTION privrisk.counter_combine(bigint[], bigint[]) RETURNS bigint[]
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_counter_combine';
CREATE FUNCTION privrisk.counter_ratio_final(bigint[]) RETURNS float8
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_counter_ratio_final';
-- Average (marketer) risk: mean over records of 1/|class| = classes / rows. State {rows, classes}.
CREATE AGGREGATE privrisk.average_risk(privrisk.hist) (
    SFUNC = privrisk.average_risk_transition, STYPE = bigint[], INITCOND = '{0,0}',
    FINALFUNC = privrisk.counter_ratio_final, COMBINEFUNC = privrisk.counter_combine, PARALLEL = SAFE
);
-- Share of records whose 1/|class| exceeds threshold. State {rows, rows at risk}.
CREATE AGGREGATE privrisk.records_at_risk(privrisk.hist, threshold float8) (
    SFUNC = privrisk.records_at_risk_transition, STYPE = bigint[], INITCOND = '{0,0}',
    FINALFUNC = privrisk.counter_ratio_final, COMBINEFUNC = privrisk.counter_combine, PARALLEL = SAFE
);

CREATE FUNCTION privrisk.l_diversity_transition(float8, privrisk.hist) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_l_diversity_transition';
CREATE FUNCTION privrisk.l_diversity_transition(float8, privrisk.hist, text) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_l_diversity_transition';
CREATE FUNCTION privrisk.l_diversity_transition(float8, privrisk.hist, text, float8) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_l_diversity_transition';
-- ℓ-diversity level: the largest ℓ every class satisfies (kind distinct | entropy | recursive, with c).
CREATE AGGREGATE privrisk.l_diversity(privrisk.hist) (
    SFUNC = privrisk.l_diversity_transition, STYPE = float8, COMBINEFUNC = pg_catalog.float8smaller, PARALLEL = SAFE
);
CREATE AGGREGATE privrisk.l_diversity(privrisk.hist, kind text) (
    SFUNC = privrisk.l_diversity_transition, STYPE = float8, COMBINEFUNC = pg_catalog.float8smaller, PARALLEL = SAFE
);
CREATE AGGREGATE privrisk.l_diversity(privrisk.hist, kind text, c float8) (
    SFUNC = privrisk.l_diversity_transition, STYPE = float8, COMBINEFUNC = pg_catalog.float8smaller, PARALLEL = SAFE
);

-- The class multiset: the state of the measures that need the table's distribution.
CREATE FUNCTION privrisk.class_set_transition(internal, privrisk.hist) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_set_transition';
CREATE FUNCTION privrisk.class_set_transition(internal, privrisk.hist, text) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_set_transition';
CREATE FUNCTION privrisk.class_set_transition(internal, privrisk.hist, text, text) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_set_transition';
CREATE FUNCTION privrisk.class_set_combine(internal, internal) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_set_combine';
CREATE FUNCTION privrisk.class_set_serialize(internal) RETURNS bytea
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_set_serialize';
CREATE FUNCTION privrisk.class_set_deserialize(bytea, internal) RETURNS internal
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_set_deserialize';
-- t_closeness reads a hierarchy from the catalog when kind is 'hierarchical': STABLE.
CREATE FUNCTION privrisk.t_closeness_final(internal) RETURNS float8
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_t_closeness_final';
CREATE FUNCTION privrisk.delta_disclosure_final(internal) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_delta_disclosure_final';
CREATE FUNCTION privrisk.a_know_final(internal) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_a_know_final';
CREATE FUNCTION privrisk.a_acc_final(internal) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_a_acc_final';
CREATE FUNCTION privrisk.information_gain_final(internal) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_information_gain_final';

-- t-closeness level: the largest EMD of a class from the table (kind equal | ordered | hierarchical).
CREATE AGGREGATE privrisk.t_closeness(privrisk.hist) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.t_closeness_final,
    COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize,
    DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE
);
CREATE AGGREGATE privrisk.t_closeness(privrisk.hist, kind text) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.t_closeness_final,
    COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize,
    DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE
);
CREATE AGGREGATE privrisk.t_closeness(privrisk.hist, kind text, hierarchy text) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.t_closeness_final,
    COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize,
    DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE
);
-- δ-disclosure level (nats): largest |ln(p(s|class)/p(s))|; Infinity if a class lacks a value.
CREATE AGGREGATE privrisk.delta_disclosure(privrisk.hist) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.delta_disclosure_final,
    COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize,
    DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE
);
-- Adversarial knowledge gain A_know (mean variational distance over records).
CREATE AGGREGATE privrisk.a_know(privrisk.hist) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.a_know_final,
    COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize,
    DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE
);
-- Adversarial accuracy gain A_acc.
CREATE AGGREGATE privrisk.a_acc(privrisk.hist) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.a_acc_final,
    COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize,
    DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE
);
-- Information gain I(S;Q) = H(S) - H(S|Q), nats.
CREATE AGGREGATE privrisk.information_gain(privrisk.hist) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.information_gain_final,
    COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize,
    DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE
);

------------------------------------------------------------------------------
-- audit(): every applicable measure of one release in one scan, and the log.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.audit_classes(source regclass, quasi_identifiers text[], sensitive text, hierarchies text[],
                                       levels int[], risk_threshold float8, l_c float8, sensitive_hierarchy text)
    RETURNS jsonb
    LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_audit_classes';

-- options: risk_threshold (records_at_risk, default 0.2), l_c (recursive (c,l), default 3),
-- sensitive_hierarchy (a hierarchy over the sensitive values: adds t_hierarchical).
CREATE FUNCTION privrisk.audit(source regclass, quasi_identifiers text[], sensitive text DEFAULT NULL,
                               hierarchies text[] DEFAULT NULL, levels int[] DEFAULT NULL,
                               options jsonb DEFAULT '{}') RETURNS jsonb
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path = pg_catalog, pg_temp
AS $$
DECLARE
    unknown text;
BEGIN
    IF options IS NULL OR jsonb_typeof(options) <> 'object' THEN
        RAISE EXCEPTION 'options must be a JSON object' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    SELECT string_agg(quote_literal(k), ', ') INTO unknown FROM jsonb_object_keys(options) AS k
    WHERE k NOT IN ('risk_threshold', 'l_c', 'sensitive_hierarchy');
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION 'unknown audit option(s) %', unknown
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'known options: risk_threshold, l_c, sensitive_hierarchy';
    END IF;
    IF options ? 'risk_threshold' AND jsonb_typeof(options->'risk_threshold') <> 'number'
       OR options ? 'l_c' AND jsonb_typeof(options->'l_c') <> 'number'
       OR options ? 'sensitive_hierarchy' AND jsonb_typeof(options->'sensitive_hierarchy') <> 'string' THEN
        RAISE EXCEPTION 'audit options: risk_threshold and l_c are numbers, sensitive_hierarchy a string'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN privrisk.audit_classes(source, quasi_identifiers, sensitive, hierarchies, levels,
                                  (options->>'risk_threshold')::float8, (options->>'l_c')::float8,
                                  options->>'sensitive_hierarchy');
END $$;

-- Who audited what, when, with which settings, and the result. Every role may
-- record and read its own audits (row-level security); the owner sees all.
CREATE TABLE privrisk.audit_log (
    id          bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
    audited_by  name NOT NULL DEFAULT current_user,
    audited_at  timestamptz NOT NULL DEFAULT now(),
    source      text NOT NULL,
    settings    jsonb NOT NULL,
    result      jsonb NOT NULL
);
SELECT pg_catalog.pg_extension_config_dump('privrisk.audit_log', '');
ALTER TABLE privrisk.audit_log ENABLE ROW LEVEL SECURITY;
CREATE POLICY own_audits ON privrisk.audit_log USING (audited_by = current_user)
    WITH CHECK (audited_by = current_user);
GRANT SELECT, INSERT ON privrisk.audit_log TO PUBLIC;

CREATE PROCEDURE privrisk.record_audit(source regclass, quasi_identifiers text[], sensitive text DEFAULT NULL,
                                       hierarchies text[] DEFAULT NULL, levels int[] DEFAULT NULL,
                                       options jsonb DEFAULT '{}')
    LANGUAGE plpgsql
    SET search_path = pg_catalog, pg_temp
AS $$
BEGIN
    INSERT INTO privrisk.audit_log(source, settings, result)
    VALUES (source::text,
            jsonb_build_object('quasi_identifiers', quasi_identifiers, 'sensitive', sensitive,
                               'hierarchies', hierarchies, 'levels', levels, 'options', options),
            privrisk.audit(source, quasi_identifiers, sensitive, hierarchies, levels, options));
END $$;
