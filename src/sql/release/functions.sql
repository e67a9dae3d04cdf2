CREATE OR REPLACE FUNCTION privrisk.add_rule(policy text, "column" text, op text, condition text DEFAULT 'false'::text, hierarchy text DEFAULT NULL::text, level integer DEFAULT NULL::integer) RETURNS integer
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_add_rule';

CREATE OR REPLACE FUNCTION privrisk.create_policy(name text, source regclass, unlabelled text DEFAULT 'publish'::text) RETURNS void
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_create_policy';

CREATE OR REPLACE FUNCTION privrisk.create_release_view(policy text, view_name text, profile text DEFAULT NULL::text, override boolean DEFAULT false) RETURNS regclass
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_create_release_view';

CREATE OR REPLACE FUNCTION privrisk.drop_policy(name text, cascade boolean DEFAULT false) RETURNS void
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_drop_policy';

CREATE OR REPLACE FUNCTION privrisk.forget_dropped_relations() RETURNS event_trigger
    LANGUAGE plpgsql SECURITY DEFINER
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    DELETE FROM privrisk.release_view WHERE view::oid IN
        (SELECT objid FROM pg_event_trigger_dropped_objects() WHERE classid = 'pg_class'::regclass AND objsubid = 0);
    DELETE FROM privrisk.policy WHERE source::oid IN
        (SELECT objid FROM pg_event_trigger_dropped_objects() WHERE classid = 'pg_class'::regclass AND objsubid = 0);
END $$;

CREATE OR REPLACE FUNCTION privrisk.gen_support(internal) RETURNS internal LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_gen_support';

CREATE OR REPLACE FUNCTION privrisk.gen(value anyelement, hierarchy text, level integer) RETURNS text LANGUAGE c STABLE SUPPORT privrisk.gen_support PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_gen';

CREATE OR REPLACE FUNCTION privrisk.gen(value text, hierarchy text, level integer) RETURNS text LANGUAGE c STABLE SUPPORT privrisk.gen_support PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_gen';

CREATE OR REPLACE FUNCTION privrisk.gen(value anyelement, hierarchy text, level integer, disclose boolean) RETURNS text LANGUAGE c STABLE SUPPORT privrisk.gen_support PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_gen';

CREATE OR REPLACE FUNCTION privrisk.gen(value text, hierarchy text, level integer, disclose boolean) RETURNS text LANGUAGE c STABLE SUPPORT privrisk.gen_support PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_gen';

CREATE OR REPLACE FUNCTION privrisk.gen(value anyelement, hierarchy privrisk.pinned_hierarchy, level integer) RETURNS text LANGUAGE c IMMUTABLE SUPPORT privrisk.gen_support PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_gen_pinned';

CREATE OR REPLACE FUNCTION privrisk.gen(value text, hierarchy privrisk.pinned_hierarchy, level integer) RETURNS text LANGUAGE c IMMUTABLE SUPPORT privrisk.gen_support PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_gen_pinned';

CREATE OR REPLACE FUNCTION privrisk.canonical_text(value anyelement) RETURNS text LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_canonical_text';

CREATE OR REPLACE FUNCTION privrisk.canonical_text(value text) RETURNS text LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_canonical_text';

CREATE OR REPLACE FUNCTION privrisk.hide(value anyelement, disclose boolean) RETURNS anyelement LANGUAGE c IMMUTABLE LEAKPROOF PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hide';

CREATE OR REPLACE FUNCTION privrisk.owns_source(source regclass) RETURNS boolean
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    RETURN pg_has_role((SELECT pg_class.relowner FROM pg_class WHERE (pg_class.oid = (owns_source.source)::oid)), 'USAGE'::text);

CREATE OR REPLACE FUNCTION privrisk.refresh_policy(policy text) RETURNS integer
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_refresh_policy';

CREATE OR REPLACE FUNCTION privrisk.release_catalog_changed() RETURNS trigger
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_release_catalog_changed';

CREATE OR REPLACE FUNCTION privrisk.release_support(internal) RETURNS internal LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_release_support';

CREATE OR REPLACE FUNCTION privrisk.release(policy text) RETURNS SETOF record LANGUAGE c STABLE STRICT SUPPORT privrisk.release_support PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_release';

CREATE OR REPLACE FUNCTION privrisk.release_is_pinned(value anyelement, policy privrisk.pinned_policy) RETURNS boolean LANGUAGE c IMMUTABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_release_is_pinned';

CREATE OR REPLACE FUNCTION privrisk.release_policy_is(policy text, digest text) RETURNS boolean LANGUAGE c STABLE SUPPORT privrisk.release_support PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_release_policy_is';

CREATE OR REPLACE FUNCTION privrisk.set_suppression(policy text, quasi_identifiers text[], constraints jsonb, sensitive text DEFAULT NULL::text) RETURNS void
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_set_suppression';

CREATE OR REPLACE FUNCTION privrisk.policy_source(policy text) RETURNS regclass
    LANGUAGE c STABLE STRICT
    AS 'MODULE_PATHNAME', 'privrisk_policy_source';

CREATE OR REPLACE FUNCTION privrisk.release_suppression(view regclass) RETURNS jsonb
    LANGUAGE c STABLE STRICT
    SET max_parallel_workers_per_gather TO '0'
    AS 'MODULE_PATHNAME', 'privrisk_release_suppression';

CREATE OR REPLACE FUNCTION privrisk.with_suppression(audit jsonb, source regclass) RETURNS jsonb
    LANGUAGE plpgsql STABLE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    suppression jsonb := privrisk.release_suppression(source);
    share float8;
BEGIN
    IF suppression IS NULL THEN
        RETURN audit;
    END IF;
    audit := audit OPERATOR(pg_catalog.||)
             pg_catalog.jsonb_build_object('rows_suppressed', suppression OPERATOR(pg_catalog.->) 'rows_suppressed');
    IF NOT audit OPERATOR(pg_catalog.?) 'verdict' THEN
        RETURN audit;
    END IF;
    -- Withholding more than the policy's max_suppression fails the verdict: the rows are
    -- withheld all the same (privacy first), but the release is not the one that was approved.
    share := CASE WHEN (suppression OPERATOR(pg_catalog.->>) 'rows')::pg_catalog.int8 OPERATOR(pg_catalog.>) 0
                  THEN (suppression OPERATOR(pg_catalog.->>) 'rows_suppressed')::pg_catalog.float8
                       OPERATOR(pg_catalog./) (suppression OPERATOR(pg_catalog.->>) 'rows')::pg_catalog.float8
                  ELSE 0 END;
    audit := pg_catalog.jsonb_set(audit, '{verdict,checks}',
        (audit OPERATOR(pg_catalog.#>) '{verdict,checks}') OPERATOR(pg_catalog.||) pg_catalog.jsonb_build_array(
            pg_catalog.jsonb_build_object('measure', 'suppressed_share', 'value', share, 'comparison', '<=',
                'threshold', suppression OPERATOR(pg_catalog.->) 'max_suppression',
                'passed', suppression OPERATOR(pg_catalog.->) 'within',
                'margin', (suppression OPERATOR(pg_catalog.->>) 'max_suppression')::pg_catalog.float8
                          OPERATOR(pg_catalog.-) share,
                'note', 'share of rows withheld by the policy''s record suppression')));
    IF NOT (suppression OPERATOR(pg_catalog.->>) 'within')::pg_catalog.bool THEN
        audit := pg_catalog.jsonb_set(pg_catalog.jsonb_set(audit, '{verdict,publishable}', 'false'),
            '{verdict,summary}', pg_catalog.to_jsonb(
                CASE WHEN (audit OPERATOR(pg_catalog.#>>) '{verdict,publishable}')::pg_catalog.bool
                     THEN 'not publishable: '
                     ELSE (audit OPERATOR(pg_catalog.#>>) '{verdict,summary}') OPERATOR(pg_catalog.||) ', ' END
                OPERATOR(pg_catalog.||) pg_catalog.format('suppressed_share = %s > %s', share,
                                                          suppression OPERATOR(pg_catalog.->>) 'max_suppression')));
    END IF;
    RETURN audit;
END $$;
