COMMENT ON TABLE privrisk.pseudonym_key IS 'Each policy''s pseudonym key (pseudonymize rules: HMAC-SHA-256 of the value''s text, docs/pseudonymization.md); the secret is readable by the catalog''s owner only, the source''s owner sees when it was made';
COMMENT ON COLUMN privrisk.pseudonym_key.secret IS 'The 32-byte HMAC key: random, made with the policy''s first pseudonymize rule; never shown (no grant, no statistics); pg_dump by a superuser carries it so that a restored release keeps its pseudonyms';
COMMENT ON COLUMN privrisk.pseudonym_key.created_at IS 'When the key was made or last rotated';
COMMENT ON FUNCTION privrisk.rotate_pseudonym_key(text) IS 'replaces a policy''s pseudonym key by a new random one (source owner only): every pseudonym of its releases changes';
