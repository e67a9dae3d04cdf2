CREATE TYPE privrisk.hist;

CREATE FUNCTION privrisk.hist_in(cstring) RETURNS privrisk.hist LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_in';

CREATE FUNCTION privrisk.hist_out(privrisk.hist) RETURNS cstring LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_out';

CREATE FUNCTION privrisk.hist_recv(internal) RETURNS privrisk.hist LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_recv';

CREATE FUNCTION privrisk.hist_send(privrisk.hist) RETURNS bytea LANGUAGE c IMMUTABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hist_send';

CREATE TYPE privrisk.hist (
    INTERNALLENGTH = variable,
    INPUT = privrisk.hist_in,
    OUTPUT = privrisk.hist_out,
    RECEIVE = privrisk.hist_recv,
    SEND = privrisk.hist_send,
    ALIGNMENT = int4,
    STORAGE = extended
);
