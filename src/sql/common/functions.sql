CREATE OR REPLACE FUNCTION privrisk.caller_regclass(name text) RETURNS regclass LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_caller_regclass';

CREATE OR REPLACE FUNCTION privrisk.check_dictionary_mapping(mapping jsonb, leaf_weights jsonb) RETURNS void LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_check_dictionary_mapping';

CREATE OR REPLACE FUNCTION privrisk.check_options(kind text, options jsonb) RETURNS void LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_check_options';

CREATE OR REPLACE FUNCTION privrisk.guard_selftest(kind text, depth integer) RETURNS bigint LANGUAGE c PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_guard_selftest';
