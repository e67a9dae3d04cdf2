CREATE OR REPLACE FUNCTION privrisk.ck_combine(bigint[], bigint[]) RETURNS bigint[] LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_combine';

CREATE OR REPLACE FUNCTION privrisk.ck_curve_final(bigint[]) RETURNS double precision[] LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_curve_final';

CREATE OR REPLACE FUNCTION privrisk.ck_max_final(bigint[]) RETURNS double precision LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_max_final';

CREATE OR REPLACE FUNCTION privrisk.ck_safe_final(bigint[], privrisk.hist, double precision, integer) RETURNS boolean LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_safe_final';

CREATE OR REPLACE FUNCTION privrisk.ck_transition(bigint[], privrisk.hist, integer) RETURNS bigint[] LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_transition';

CREATE OR REPLACE FUNCTION privrisk.ck_transition(bigint[], privrisk.hist, double precision, integer) RETURNS bigint[] LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_safe_transition';

CREATE OR REPLACE FUNCTION privrisk.ck_worst_case_combine(internal, internal) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_worst_case_combine';

CREATE OR REPLACE FUNCTION privrisk.ck_worst_case_deserialize(bytea, internal) RETURNS internal LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_worst_case_deserialize';

CREATE OR REPLACE FUNCTION privrisk.ck_worst_case_final(internal) RETURNS jsonb LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_worst_case_final';

CREATE OR REPLACE FUNCTION privrisk.ck_worst_case_serialize(internal) RETURNS bytea LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_worst_case_serialize';

CREATE OR REPLACE FUNCTION privrisk.ck_worst_case_transition(internal, privrisk.hist, integer) RETURNS internal LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_ck_worst_case_transition';

CREATE OR REPLACE FUNCTION privrisk.neg_combine(double precision[], double precision[]) RETURNS double precision[] LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_neg_combine';

CREATE OR REPLACE FUNCTION privrisk.neg_final(double precision[]) RETURNS double precision[] LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_neg_final';

CREATE OR REPLACE FUNCTION privrisk.neg_transition(double precision[], privrisk.hist, integer) RETURNS double precision[] LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_neg_transition';

CREATE OR REPLACE AGGREGATE privrisk.ck_disclosure_curve(privrisk.hist, kmax integer) (
    SFUNC = privrisk.ck_transition, STYPE = bigint[], FINALFUNC = privrisk.ck_curve_final, COMBINEFUNC = privrisk.ck_combine, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.ck_max_disclosure(privrisk.hist, k integer) (
    SFUNC = privrisk.ck_transition, STYPE = bigint[], FINALFUNC = privrisk.ck_max_final, COMBINEFUNC = privrisk.ck_combine, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.ck_safe(privrisk.hist, c double precision, k integer) (
    SFUNC = privrisk.ck_transition, STYPE = bigint[], FINALFUNC = privrisk.ck_safe_final, FINALFUNC_EXTRA, COMBINEFUNC = privrisk.ck_combine, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.ck_worst_case(privrisk.hist, k integer) (
    SFUNC = privrisk.ck_worst_case_transition, STYPE = internal, FINALFUNC = privrisk.ck_worst_case_final, COMBINEFUNC = privrisk.ck_worst_case_combine, SERIALFUNC = privrisk.ck_worst_case_serialize, DESERIALFUNC = privrisk.ck_worst_case_deserialize, PARALLEL = SAFE);

CREATE OR REPLACE AGGREGATE privrisk.neg_disclosure_curve(privrisk.hist, kmax integer) (
    SFUNC = privrisk.neg_transition, STYPE = double precision[], FINALFUNC = privrisk.neg_final, COMBINEFUNC = privrisk.neg_combine, PARALLEL = SAFE);
