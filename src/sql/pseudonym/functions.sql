CREATE OR REPLACE FUNCTION privrisk.rotate_pseudonym_key(policy text) RETURNS void
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_rotate_pseudonym_key';
