CREATE TABLE privrisk.policy (
    name text NOT NULL,
    source regclass NOT NULL,
    created_by name NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    unlabelled text DEFAULT 'publish'::text NOT NULL,
    base_name text NOT NULL,
    CONSTRAINT policy_name_check CHECK (((name <> ''::text) AND (octet_length(name) <= 600))),
    CONSTRAINT policy_base_name_check CHECK (((base_name <> ''::text) AND (octet_length(base_name) <= 200))),
    CONSTRAINT policy_unlabelled_check CHECK ((unlabelled = ANY (ARRAY['publish'::text, 'hide'::text])))
);

CREATE TABLE privrisk.policy_rule (
    policy text NOT NULL,
    rule integer NOT NULL,
    column_name name NOT NULL,
    operator text NOT NULL,
    condition text NOT NULL,
    hierarchy text,
    level integer,
    condition_tree text,
    condition_columns name[],
    hierarchy_version bigint,
    column_number smallint,
    CONSTRAINT policy_rule_check CHECK (((operator = 'gen'::text) = ((hierarchy IS NOT NULL) AND (level IS NOT NULL)))),
    CONSTRAINT policy_rule_operator_check CHECK ((operator = ANY (ARRAY['hide'::text, 'gen'::text, 'pseudonymize'::text]))),
    CONSTRAINT policy_rule_rule_check CHECK ((rule >= 1))
);

CREATE TABLE privrisk.release_view (
    view regclass NOT NULL,
    policy text NOT NULL,
    column_numbers smallint[],
    column_names name[]
);

-- The source's columns as the policy's owner last approved them (create_policy,
-- add_rule, refresh_policy): a release stops when a column a rule or a label
-- names was renamed, retyped or dropped since (docs/release.md).
CREATE TABLE privrisk.policy_column (
    policy text NOT NULL,
    column_number smallint NOT NULL,
    column_name name NOT NULL,
    column_type regtype NOT NULL,
    guarded boolean NOT NULL
);

-- A policy pinned by the digest of its definition, for a shard (docs/scale-out.md):
-- name@digest@server; a release view over shards checks each shard's policy against it.
CREATE TYPE privrisk.pinned_policy;

CREATE FUNCTION privrisk.pinned_policy_in(cstring) RETURNS privrisk.pinned_policy LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_policy_in';

CREATE FUNCTION privrisk.pinned_policy_out(privrisk.pinned_policy) RETURNS cstring LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_policy_out';

CREATE FUNCTION privrisk.pinned_policy_recv(internal) RETURNS privrisk.pinned_policy LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_policy_recv';

CREATE FUNCTION privrisk.pinned_policy_send(privrisk.pinned_policy) RETURNS bytea LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_policy_send';

CREATE TYPE privrisk.pinned_policy (
    INTERNALLENGTH = variable,
    INPUT = privrisk.pinned_policy_in,
    OUTPUT = privrisk.pinned_policy_out,
    RECEIVE = privrisk.pinned_policy_recv,
    SEND = privrisk.pinned_policy_send,
    ALIGNMENT = int4,
    STORAGE = extended
);

ALTER TABLE ONLY privrisk.policy ADD CONSTRAINT policy_pkey PRIMARY KEY (name);

ALTER TABLE ONLY privrisk.policy_rule ADD CONSTRAINT policy_rule_pkey PRIMARY KEY (policy, rule);

ALTER TABLE ONLY privrisk.release_view ADD CONSTRAINT release_view_pkey PRIMARY KEY (view);

ALTER TABLE ONLY privrisk.policy_column ADD CONSTRAINT policy_column_pkey PRIMARY KEY (policy, column_number);

ALTER TABLE ONLY privrisk.policy_column ADD CONSTRAINT policy_column_policy_fkey FOREIGN KEY (policy) REFERENCES privrisk.policy(name) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY privrisk.policy_rule ADD CONSTRAINT policy_rule_policy_fkey FOREIGN KEY (policy) REFERENCES privrisk.policy(name) ON UPDATE CASCADE ON DELETE CASCADE;

ALTER TABLE ONLY privrisk.release_view ADD CONSTRAINT release_view_policy_fkey FOREIGN KEY (policy) REFERENCES privrisk.policy(name) ON UPDATE CASCADE ON DELETE CASCADE;

GRANT SELECT ON TABLE privrisk.policy TO PUBLIC;

GRANT SELECT ON TABLE privrisk.policy_rule TO PUBLIC;

GRANT SELECT ON TABLE privrisk.release_view TO PUBLIC;

GRANT SELECT ON TABLE privrisk.policy_column TO PUBLIC;

-- Catalog rows are the user's data: pg_dump dumps them (and the sequences' positions).
SELECT pg_catalog.pg_extension_config_dump('privrisk.policy', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.policy_rule', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.release_view', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.policy_column', '');

-- A policy's record suppression (docs/release.md, "Record suppression"): the classes
-- (the quasi-identifiers' released values) that violate a per-class constraint are
-- withheld, decided at every read from the whole source.
CREATE TABLE privrisk.policy_suppression (
    policy text NOT NULL,
    quasi_identifiers name[] NOT NULL,
    sensitive name,
    constraints jsonb NOT NULL,
    CONSTRAINT policy_suppression_quasi_identifiers_check CHECK ((pg_catalog.cardinality(quasi_identifiers) >= 1))
);

ALTER TABLE ONLY privrisk.policy_suppression ADD CONSTRAINT policy_suppression_pkey PRIMARY KEY (policy);

ALTER TABLE ONLY privrisk.policy_suppression ADD CONSTRAINT policy_suppression_policy_fkey FOREIGN KEY (policy) REFERENCES privrisk.policy(name) ON UPDATE CASCADE ON DELETE CASCADE;

GRANT SELECT ON TABLE privrisk.policy_suppression TO PUBLIC;

SELECT pg_catalog.pg_extension_config_dump('privrisk.policy_suppression', '');
