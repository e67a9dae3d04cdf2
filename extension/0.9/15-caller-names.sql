
------------------------------------------------------------------------------
-- A relation named inside options (audit's and search's "dictionary") is
-- resolved on the caller's search path, as a regclass argument would be,
-- although the functions themselves run under the pinned one.
------------------------------------------------------------------------------
CREATE FUNCTION privrisk.caller_regclass(name text) RETURNS regclass
    LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_caller_regclass';
COMMENT ON FUNCTION privrisk.caller_regclass(text) IS
    'A relation name resolved on the search path of the caller of the privrisk function running now (internal)';
