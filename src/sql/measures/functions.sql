CREATE OR REPLACE FUNCTION privrisk.a_acc_final(internal) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_a_acc_final';

CREATE OR REPLACE FUNCTION privrisk.a_know_final(internal) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_a_know_final';

CREATE OR REPLACE FUNCTION privrisk.audit_classes(source regclass, quasi_identifiers text[], sensitive text, hierarchies text[], levels integer[], risk_threshold double precision, l_c double precision, sensitive_hierarchy text, kmax integer) RETURNS jsonb LANGUAGE c STABLE PARALLEL RESTRICTED AS 'MODULE_PATHNAME', 'privrisk_audit_classes';

CREATE OR REPLACE FUNCTION privrisk.average_risk_transition(bigint[], privrisk.hist) RETURNS bigint[] LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_average_risk_transition';

CREATE OR REPLACE FUNCTION privrisk.class_set_combine(internal, internal) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_set_combine';

CREATE OR REPLACE FUNCTION privrisk.class_set_deserialize(bytea, internal) RETURNS internal LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_set_deserialize';

CREATE OR REPLACE FUNCTION privrisk.class_set_serialize(internal) RETURNS bytea LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_set_serialize';

CREATE OR REPLACE FUNCTION privrisk.class_set_transition(internal, privrisk.hist) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_set_transition';

CREATE OR REPLACE FUNCTION privrisk.class_set_transition(internal, privrisk.hist, text) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_set_transition';

CREATE OR REPLACE FUNCTION privrisk.class_set_transition(internal, privrisk.hist, text, text) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_class_set_transition';

CREATE OR REPLACE FUNCTION privrisk.counter_combine(bigint[], bigint[]) RETURNS bigint[] LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_counter_combine';

CREATE OR REPLACE FUNCTION privrisk.counter_ratio_final(bigint[]) RETURNS double precision LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_counter_ratio_final';

CREATE OR REPLACE FUNCTION privrisk.delta_disclosure_final(internal) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_delta_disclosure_final';

CREATE OR REPLACE FUNCTION privrisk.information_gain_final(internal) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_information_gain_final';

CREATE OR REPLACE FUNCTION privrisk.k_transition(bigint, privrisk.hist) RETURNS bigint LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_k_transition';

CREATE OR REPLACE FUNCTION privrisk.l_diversity_transition(double precision, privrisk.hist) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_l_diversity_transition';

CREATE OR REPLACE FUNCTION privrisk.l_diversity_transition(double precision, privrisk.hist, text) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_l_diversity_transition';

CREATE OR REPLACE FUNCTION privrisk.l_diversity_transition(double precision, privrisk.hist, text, double precision) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_l_diversity_transition';

CREATE OR REPLACE FUNCTION privrisk.prosecutor_final(bigint) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_prosecutor_final';

CREATE OR REPLACE PROCEDURE privrisk.record_audit(IN source regclass, IN quasi_identifiers text[] DEFAULT NULL::text[], IN sensitive text DEFAULT NULL::text, IN hierarchies text[] DEFAULT NULL::text[], IN levels integer[] DEFAULT NULL::integer[], IN options jsonb DEFAULT '{}'::jsonb, IN profile text DEFAULT NULL::text)
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_record_audit';

CREATE OR REPLACE FUNCTION privrisk.records_at_risk_transition(bigint[], privrisk.hist, double precision) RETURNS bigint[] LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_records_at_risk_transition';

CREATE OR REPLACE FUNCTION privrisk.t_closeness_final(internal) RETURNS double precision LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_t_closeness_final';

CREATE OR REPLACE AGGREGATE privrisk.a_acc(privrisk.hist) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.a_acc_final, COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize, DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.a_know(privrisk.hist) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.a_know_final, COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize, DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.average_risk(privrisk.hist) (
    SFUNC = privrisk.average_risk_transition, STYPE = bigint[], INITCOND = '{0,0}', FINALFUNC = privrisk.counter_ratio_final, COMBINEFUNC = privrisk.counter_combine, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.delta_disclosure(privrisk.hist) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.delta_disclosure_final, COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize, DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.information_gain(privrisk.hist) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.information_gain_final, COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize, DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.k_anonymity(privrisk.hist) (
    SFUNC = privrisk.k_transition, STYPE = bigint, COMBINEFUNC = int8smaller, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.l_diversity(privrisk.hist) (
    SFUNC = privrisk.l_diversity_transition, STYPE = double precision, COMBINEFUNC = float8smaller, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.l_diversity(privrisk.hist, kind text) (
    SFUNC = privrisk.l_diversity_transition, STYPE = double precision, COMBINEFUNC = float8smaller, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.l_diversity(privrisk.hist, kind text, c double precision) (
    SFUNC = privrisk.l_diversity_transition, STYPE = double precision, COMBINEFUNC = float8smaller, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.prosecutor_risk(privrisk.hist) (
    SFUNC = privrisk.k_transition, STYPE = bigint, FINALFUNC = privrisk.prosecutor_final, COMBINEFUNC = int8smaller, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.records_at_risk(privrisk.hist, threshold double precision) (
    SFUNC = privrisk.records_at_risk_transition, STYPE = bigint[], INITCOND = '{0,0}', FINALFUNC = privrisk.counter_ratio_final, COMBINEFUNC = privrisk.counter_combine, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.t_closeness(privrisk.hist) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.t_closeness_final, COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize, DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.t_closeness(privrisk.hist, kind text) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.t_closeness_final, COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize, DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.t_closeness(privrisk.hist, kind text, hierarchy text) (
    SFUNC = privrisk.class_set_transition, STYPE = internal, FINALFUNC = privrisk.t_closeness_final, COMBINEFUNC = privrisk.class_set_combine, SERIALFUNC = privrisk.class_set_serialize, DESERIALFUNC = privrisk.class_set_deserialize, PARALLEL = SAFE);
