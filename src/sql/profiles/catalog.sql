CREATE TABLE privrisk.risk_profile (
    name text NOT NULL,
    thresholds jsonb NOT NULL,
    description text,
    owner regrole,
    shipped boolean DEFAULT false NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    owner_name name NOT NULL,
    CONSTRAINT risk_profile_name_check CHECK (((name <> ''::text) AND (octet_length(name) <= 200))),
    CONSTRAINT risk_profile_thresholds_check CHECK ((jsonb_typeof(thresholds) = 'object'::text))
);

ALTER TABLE ONLY privrisk.risk_profile ADD CONSTRAINT risk_profile_pkey PRIMARY KEY (name);

-- One profile per name regardless of case (docs/profiles.md: names are ASCII, compared by key).
CREATE UNIQUE INDEX risk_profile_name_key ON privrisk.risk_profile USING btree (lower((name COLLATE "C")));

GRANT SELECT ON TABLE privrisk.risk_profile TO PUBLIC;

-- Two examples ship with the extension (docs/profiles.md: examples, not legal
-- advice). CREATE EXTENSION makes them, so pg_dump dumps only the users' profiles.
INSERT INTO privrisk.risk_profile(name, thresholds, description, owner, owner_name, shipped) VALUES
    ('public_use_file', '{"k": 5, "l": 2}',
     'example: every class has at least 5 rows and 2 distinct sensitive values',
     (quote_ident((CURRENT_USER)::text))::regrole, CURRENT_USER, true),
    ('ck_safe_k10', '{"k": 10, "c": 0.5, "ck_k": 3}',
     'example: every class has at least 10 rows, and an attacker who knows 3 implications learns a sensitive value with probability below 0.5 ((0.5, 3)-safe)',
     (quote_ident((CURRENT_USER)::text))::regrole, CURRENT_USER, true);

SELECT pg_catalog.pg_extension_config_dump('privrisk.risk_profile', 'WHERE NOT shipped');
