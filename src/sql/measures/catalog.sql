CREATE TABLE privrisk.audit_log (
    id bigint NOT NULL,
    audited_by name DEFAULT CURRENT_USER NOT NULL,
    audited_at timestamp with time zone DEFAULT now() NOT NULL,
    source text NOT NULL,
    settings jsonb NOT NULL,
    result jsonb NOT NULL,
    session_role name,
    release jsonb
);

ALTER TABLE privrisk.audit_log ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME privrisk.audit_log_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE ONLY privrisk.audit_log ADD CONSTRAINT audit_log_pkey PRIMARY KEY (id);

GRANT SELECT ON TABLE privrisk.audit_log TO PUBLIC;

-- Catalog rows are the user's data: pg_dump dumps them (and the sequences' positions).
SELECT pg_catalog.pg_extension_config_dump('privrisk.audit_log', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.audit_log_id_seq', '');
