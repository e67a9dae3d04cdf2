CREATE OR REPLACE FUNCTION privrisk.create_profile(name text, thresholds jsonb, description text DEFAULT NULL::text, replace boolean DEFAULT false) RETURNS void
    LANGUAGE c AS 'MODULE_PATHNAME', 'privrisk_create_profile';

CREATE OR REPLACE FUNCTION privrisk.drop_profile(name text) RETURNS void
    LANGUAGE c AS 'MODULE_PATHNAME', 'privrisk_drop_profile';

CREATE OR REPLACE FUNCTION privrisk.profile_options(profile text, kind text) RETURNS jsonb
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_profile_options';

CREATE OR REPLACE FUNCTION privrisk.profile_verdict(profile text, audit jsonb, source regclass) RETURNS jsonb
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_profile_verdict';

CREATE OR REPLACE FUNCTION privrisk."check"(source regclass, profile text, quasi_identifiers text[] DEFAULT NULL::text[], sensitive text DEFAULT NULL::text, hierarchies text[] DEFAULT NULL::text[], levels integer[] DEFAULT NULL::integer[], options jsonb DEFAULT '{}'::jsonb)
    RETURNS TABLE(measure text, value double precision, comparison text, threshold double precision, passed boolean, margin double precision, note text)
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF profile IS NULL THEN
        RAISE EXCEPTION 'check: profile must not be NULL' USING ERRCODE = 'invalid_parameter_value';
    END IF;
    RETURN QUERY
        SELECT c.measure, c.value, c.comparison, c.threshold, c.passed, c.margin, c.note
          FROM jsonb_to_recordset(privrisk.audit(source, quasi_identifiers, sensitive, hierarchies, levels, options, profile)
                                  -> 'verdict' -> 'checks')
               AS c(measure text, value double precision, comparison text, threshold double precision, passed boolean,
                    margin double precision, note text);
END $$;
