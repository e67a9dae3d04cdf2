CREATE SEQUENCE privrisk.hierarchy_version_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1;

CREATE TABLE privrisk.hierarchy (
    name text NOT NULL,
    kind text NOT NULL,
    height integer NOT NULL,
    root text,
    lo numeric,
    hi numeric,
    widths bigint[],
    max_len integer,
    created_by name DEFAULT CURRENT_USER NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    owner regrole DEFAULT (quote_ident((CURRENT_USER)::text))::regrole NOT NULL,
    version bigint DEFAULT nextval('privrisk.hierarchy_version_seq'::regclass) NOT NULL,
    CONSTRAINT hierarchy_check CHECK (((kind = 'tree'::text) = (root IS NOT NULL))),
    CONSTRAINT hierarchy_check1 CHECK (((kind = 'interval'::text) = ((lo IS NOT NULL) AND (hi IS NOT NULL) AND (widths IS NOT NULL)))),
    CONSTRAINT hierarchy_check2 CHECK (((kind = 'prefix'::text) = (max_len IS NOT NULL))),
    CONSTRAINT hierarchy_height_check CHECK ((height >= 1)),
    CONSTRAINT hierarchy_kind_check CHECK ((kind = ANY (ARRAY['tree'::text, 'interval'::text, 'prefix'::text, 'date'::text]))),
    CONSTRAINT hierarchy_name_check CHECK (((name <> ''::text) AND (octet_length(name) <= 200))),
    CONSTRAINT hierarchy_version_check CHECK ((version >= 1))
);

CREATE TABLE privrisk.hierarchy_leaf (
    hierarchy text NOT NULL,
    line integer NOT NULL,
    path text[] NOT NULL
);

ALTER TABLE ONLY privrisk.hierarchy_leaf ADD CONSTRAINT hierarchy_leaf_pkey PRIMARY KEY (hierarchy, line);

ALTER TABLE ONLY privrisk.hierarchy ADD CONSTRAINT hierarchy_pkey PRIMARY KEY (name);

ALTER TABLE ONLY privrisk.hierarchy_leaf ADD CONSTRAINT hierarchy_leaf_hierarchy_fkey FOREIGN KEY (hierarchy) REFERENCES privrisk.hierarchy(name) ON UPDATE CASCADE ON DELETE CASCADE;

GRANT SELECT ON TABLE privrisk.hierarchy TO PUBLIC;

GRANT SELECT ON TABLE privrisk.hierarchy_leaf TO PUBLIC;

-- Catalog rows are the user's data: pg_dump dumps them (and the sequences' positions).
SELECT pg_catalog.pg_extension_config_dump('privrisk.hierarchy', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.hierarchy_leaf', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.hierarchy_version_seq', '');

-- A hierarchy pinned by the digest of its definition: generalizing through it is IMMUTABLE.
CREATE TYPE privrisk.pinned_hierarchy;

CREATE FUNCTION privrisk.pinned_hierarchy_in(cstring) RETURNS privrisk.pinned_hierarchy LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_hierarchy_in';

CREATE FUNCTION privrisk.pinned_hierarchy_out(privrisk.pinned_hierarchy) RETURNS cstring LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_hierarchy_out';

CREATE FUNCTION privrisk.pinned_hierarchy_recv(internal) RETURNS privrisk.pinned_hierarchy LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_hierarchy_recv';

CREATE FUNCTION privrisk.pinned_hierarchy_send(privrisk.pinned_hierarchy) RETURNS bytea LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pinned_hierarchy_send';

CREATE TYPE privrisk.pinned_hierarchy (
    INTERNALLENGTH = variable,
    INPUT = privrisk.pinned_hierarchy_in,
    OUTPUT = privrisk.pinned_hierarchy_out,
    RECEIVE = privrisk.pinned_hierarchy_recv,
    SEND = privrisk.pinned_hierarchy_send,
    ALIGNMENT = int4,
    STORAGE = extended
);
