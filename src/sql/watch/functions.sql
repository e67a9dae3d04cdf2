CREATE OR REPLACE FUNCTION privrisk.watch(view regclass, profile text, fail_closed boolean DEFAULT false) RETURNS jsonb
    LANGUAGE c AS 'MODULE_PATHNAME', 'privrisk_watch';

CREATE OR REPLACE FUNCTION privrisk.unwatch(view regclass) RETURNS void
    LANGUAGE c AS 'MODULE_PATHNAME', 'privrisk_unwatch';

CREATE OR REPLACE FUNCTION privrisk.recheck_view(view regclass) RETURNS jsonb
    LANGUAGE c AS 'MODULE_PATHNAME', 'privrisk_recheck_view';

-- Every watched view the caller may recheck (owns it and its policy's source),
-- in a fixed order; a view whose audit fails gets a failing verdict naming the
-- error (recheck_view), the others are rechecked all the same.
CREATE OR REPLACE PROCEDURE privrisk.recheck_watched(INOUT rechecked integer DEFAULT NULL, INOUT failing integer DEFAULT NULL)
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
DECLARE
    v pg_catalog.regclass;
BEGIN
    rechecked := 0;
    failing := 0;
    FOR v IN SELECT w.view FROM privrisk.watched_view w
              WHERE privrisk.owns_source(w.view)
              ORDER BY w.view::pg_catalog.oid LOOP
        IF NOT (privrisk.recheck_view(v) OPERATOR(pg_catalog.->>) 'passed')::pg_catalog.bool THEN
            failing := failing OPERATOR(pg_catalog.+) 1;
        END IF;
        rechecked := rechecked OPERATOR(pg_catalog.+) 1;
    END LOOP;
END $$;
