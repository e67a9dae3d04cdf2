-- SECURITY LABEL FOR privrisk works in a session once the library is loaded;
-- say how to have it loaded in every session (docs/labels.md).
DO $$
BEGIN
    IF pg_catalog.current_setting('session_preload_libraries') OPERATOR(pg_catalog.!~) 'privrisk'
       AND pg_catalog.current_setting('shared_preload_libraries') OPERATOR(pg_catalog.!~) 'privrisk' THEN
        RAISE NOTICE 'privrisk: column labels (SECURITY LABEL FOR privrisk) need the library loaded in the session'
            USING HINT = 'ALTER DATABASE … SET session_preload_libraries = ''privrisk'' (as a superuser), or call any privrisk function first in the session';
    END IF;
END $$;
