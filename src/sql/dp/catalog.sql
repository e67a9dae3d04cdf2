CREATE TABLE privrisk.budget (
    relation regclass NOT NULL,
    epsilon double precision NOT NULL,
    delta double precision NOT NULL,
    spent_epsilon double precision DEFAULT 0 NOT NULL,
    spent_delta double precision DEFAULT 0 NOT NULL,
    set_by name NOT NULL,
    set_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT budget_delta_check CHECK (((delta >= (0)::double precision) AND (delta < (1)::double precision))),
    CONSTRAINT budget_epsilon_check CHECK (((epsilon > (0)::double precision) AND (epsilon < 'Infinity'::double precision))),
    CONSTRAINT budget_spent_delta_check CHECK ((spent_delta >= (0)::double precision)),
    CONSTRAINT budget_spent_epsilon_check CHECK ((spent_epsilon >= (0)::double precision))
);

CREATE TABLE privrisk.budget_ledger (
    id bigint NOT NULL,
    relation regclass NOT NULL,
    spent_at timestamp with time zone DEFAULT clock_timestamp() NOT NULL,
    spent_by name NOT NULL,
    epsilon double precision NOT NULL,
    delta double precision NOT NULL,
    mechanism text NOT NULL,
    parameters jsonb NOT NULL,
    private boolean NOT NULL
);

ALTER TABLE privrisk.budget_ledger ALTER COLUMN id ADD GENERATED ALWAYS AS IDENTITY (
    SEQUENCE NAME privrisk.budget_ledger_id_seq
    START WITH 1
    INCREMENT BY 1
    NO MINVALUE
    NO MAXVALUE
    CACHE 1
);

ALTER TABLE ONLY privrisk.budget_ledger ADD CONSTRAINT budget_ledger_pkey PRIMARY KEY (id);

ALTER TABLE ONLY privrisk.budget ADD CONSTRAINT budget_pkey PRIMARY KEY (relation);

CREATE INDEX budget_ledger_relation ON privrisk.budget_ledger USING btree (relation);

GRANT SELECT ON TABLE privrisk.budget TO PUBLIC;

GRANT SELECT ON TABLE privrisk.budget_ledger TO PUBLIC;

-- Catalog rows are the user's data: pg_dump dumps them (and the sequences' positions).
SELECT pg_catalog.pg_extension_config_dump('privrisk.budget', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.budget_ledger', '');
SELECT pg_catalog.pg_extension_config_dump('privrisk.budget_ledger_id_seq', '');
