-- privrisk 0.3: (c,k)-safety (SPEC §4.4; digest 004, corrected algorithms).
\echo Use "ALTER EXTENSION privrisk UPDATE TO '0.3'" to load this file. \quit

-- The curve aggregates share one state: int8[] = {kmax, buckets, c, T0[0..kmax], T1[0..kmax]}, the
-- two-state knapsack of digest 004 §3.5 in fixed-point logarithms (order-independent), merged by the
-- combine function.
CREATE FUNCTION privrisk.ck_transition(bigint[], privrisk.hist, int) RETURNS bigint[]
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_transition';
CREATE FUNCTION privrisk.ck_transition(bigint[], privrisk.hist, float8, int) RETURNS bigint[]
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_safe_transition';
CREATE FUNCTION privrisk.ck_combine(bigint[], bigint[]) RETURNS bigint[]
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_combine';
CREATE FUNCTION privrisk.ck_curve_final(bigint[]) RETURNS float8[]
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_curve_final';
CREATE FUNCTION privrisk.ck_max_final(bigint[]) RETURNS float8
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_max_final';
CREATE FUNCTION privrisk.ck_safe_final(bigint[], privrisk.hist, float8, int) RETURNS boolean
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_safe_final';

-- MD_k: the largest probability an attacker who knows k simple implications assigns to a sensitive value.
CREATE AGGREGATE privrisk.ck_max_disclosure(privrisk.hist, k int) (
    SFUNC = privrisk.ck_transition, STYPE = bigint[], FINALFUNC = privrisk.ck_max_final,
    COMBINEFUNC = privrisk.ck_combine, PARALLEL = SAFE
);
-- MD_0 .. MD_kmax in one pass (index 1 of the array is k = 0).
CREATE AGGREGATE privrisk.ck_disclosure_curve(privrisk.hist, kmax int) (
    SFUNC = privrisk.ck_transition, STYPE = bigint[], FINALFUNC = privrisk.ck_curve_final,
    COMBINEFUNC = privrisk.ck_combine, PARALLEL = SAFE
);
-- (c,k)-safe: MD_k < c, strictly; a value within 1e-12 (relative) of c counts as unsafe.
CREATE AGGREGATE privrisk.ck_safe(privrisk.hist, c float8, k int) (
    SFUNC = privrisk.ck_transition, STYPE = bigint[], FINALFUNC = privrisk.ck_safe_final, FINALFUNC_EXTRA,
    COMBINEFUNC = privrisk.ck_combine, PARALLEL = SAFE
);

-- The ℓ-diversity attacker: k negated atoms. State {kmax, MDneg_0 .. MDneg_kmax}, combined by maximum.
CREATE FUNCTION privrisk.neg_transition(float8[], privrisk.hist, int) RETURNS float8[]
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_neg_transition';
CREATE FUNCTION privrisk.neg_combine(float8[], float8[]) RETURNS float8[]
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_neg_combine';
CREATE FUNCTION privrisk.neg_final(float8[]) RETURNS float8[]
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_neg_final';
CREATE AGGREGATE privrisk.neg_disclosure_curve(privrisk.hist, kmax int) (
    SFUNC = privrisk.neg_transition, STYPE = float8[], FINALFUNC = privrisk.neg_final,
    COMBINEFUNC = privrisk.neg_combine, PARALLEL = SAFE
);

-- The attacker's worst k implications, as a witness (jsonb).
CREATE FUNCTION privrisk.ck_worst_case_transition(internal, privrisk.hist, int) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_worst_case_transition';
CREATE FUNCTION privrisk.ck_worst_case_combine(internal, internal) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_worst_case_combine';
CREATE FUNCTION privrisk.ck_worst_case_serialize(internal) RETURNS bytea
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_worst_case_serialize';
CREATE FUNCTION privrisk.ck_worst_case_deserialize(bytea, internal) RETURNS internal
    LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_worst_case_deserialize';
CREATE FUNCTION privrisk.ck_worst_case_final(internal) RETURNS jsonb
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_worst_case_final';
CREATE AGGREGATE privrisk.ck_worst_case(privrisk.hist, k int) (
    SFUNC = privrisk.ck_worst_case_transition, STYPE = internal, FINALFUNC = privrisk.ck_worst_case_final,
    COMBINEFUNC = privrisk.ck_worst_case_combine, SERIALFUNC = privrisk.ck_worst_case_serialize,
    DESERIALFUNC = privrisk.ck_worst_case_deserialize, PARALLEL = SAFE
);

-- audit() reports ck_disclosure_curve (option kmax, default 10).
DROP FUNCTION privrisk.audit_classes(regclass, text[], text, text[], int[], float8, float8, text);
CREATE FUNCTION privrisk.audit_classes(source regclass, quasi_identifiers text[], sensitive text, hierarchies text[],
                                       levels int[], risk_threshold float8, l_c float8, sensitive_hierarchy text,
                                       kmax int)
    RETURNS jsonb
    LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_audit_classes';

CREATE OR REPLACE FUNCTION privrisk.audit(source regclass, quasi_identifiers text[], sensitive text DEFAULT NULL,
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
    WHERE k NOT IN ('risk_threshold', 'l_c', 'sensitive_hierarchy', 'kmax');
    IF unknown IS NOT NULL THEN
        RAISE EXCEPTION 'unknown audit option(s) %', unknown
            USING ERRCODE = 'invalid_parameter_value',
                  HINT = 'known options: risk_threshold, l_c, sensitive_hierarchy, kmax';
    END IF;
    IF options ? 'risk_threshold' AND jsonb_typeof(options->'risk_threshold') <> 'number'
       OR options ? 'l_c' AND jsonb_typeof(options->'l_c') <> 'number'
       OR options ? 'kmax' AND jsonb_typeof(options->'kmax') <> 'number'
       OR options ? 'sensitive_hierarchy' AND jsonb_typeof(options->'sensitive_hierarchy') <> 'string' THEN
        RAISE EXCEPTION 'audit options: risk_threshold, l_c and kmax are numbers, sensitive_hierarchy a string'
            USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN privrisk.audit_classes(source, quasi_identifiers, sensitive, hierarchies, levels,
                                  (options->>'risk_threshold')::float8, (options->>'l_c')::float8,
                                  options->>'sensitive_hierarchy', (options->>'kmax')::int);
END $$;

-- hist_merge(hist): the histogram of a union of classes, to roll classes up to a coarser release
-- without reading the rows again.
CREATE FUNCTION privrisk.hist_merge_transition(internal, privrisk.hist) RETURNS internal
    LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_merge_transition';
CREATE AGGREGATE privrisk.hist_merge(privrisk.hist) (
    SFUNC = privrisk.hist_merge_transition, STYPE = internal, FINALFUNC = privrisk.hist_final,
    COMBINEFUNC = privrisk.hist_combine, SERIALFUNC = privrisk.hist_serialize,
    DESERIALFUNC = privrisk.hist_deserialize, PARALLEL = SAFE
);

-- The schema CREATE EXTENSION made is usable by every role: functions and aggregates are
-- PUBLIC by default, and what they read is guarded by the rights on the tables they read.
GRANT USAGE ON SCHEMA privrisk TO PUBLIC;
