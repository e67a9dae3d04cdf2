-- Each policy's pseudonym key (docs/pseudonymization.md): 32 random bytes, made
-- when the policy's first pseudonymize rule is added, replaced by
-- rotate_pseudonym_key. Nobody but the catalog's owner reads the secret: the
-- release scan reads it as that owner; other roles see when it was made, of
-- their own policies only. No statistics are gathered on it (pg_stats).
CREATE TABLE privrisk.pseudonym_key (
    policy text NOT NULL,
    secret bytea NOT NULL,
    created_at timestamp with time zone DEFAULT now() NOT NULL,
    CONSTRAINT pseudonym_key_secret_check CHECK ((octet_length(secret) = 32))
);

ALTER TABLE ONLY privrisk.pseudonym_key ALTER COLUMN secret SET STATISTICS 0;

ALTER TABLE ONLY privrisk.pseudonym_key ADD CONSTRAINT pseudonym_key_pkey PRIMARY KEY (policy);

ALTER TABLE ONLY privrisk.pseudonym_key ADD CONSTRAINT pseudonym_key_policy_fkey FOREIGN KEY (policy) REFERENCES privrisk.policy(name) ON UPDATE CASCADE ON DELETE CASCADE;

GRANT SELECT (policy, created_at) ON TABLE privrisk.pseudonym_key TO PUBLIC;

-- Dumped with the other catalogs, the secret included: a restored release keeps
-- its pseudonyms (only a superuser can dump it: nobody else may read it).
SELECT pg_catalog.pg_extension_config_dump('privrisk.pseudonym_key', '');
