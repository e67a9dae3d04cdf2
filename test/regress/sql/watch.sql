-- Watched release views (docs/watch.md): watch, recheck, the verdict recorded in
-- the audit log and the watch catalog, fail_closed, and who may do what.
CREATE ROLE regress_watch_steward;
CREATE ROLE regress_watch_analyst;
CREATE ROLE regress_watch_stranger;
CREATE SCHEMA regress_watch AUTHORIZATION regress_watch_steward;
GRANT USAGE ON SCHEMA regress_watch TO regress_watch_analyst, regress_watch_stranger;
SELECT privrisk.create_profile('regress_watch_k3', '{"k": 3}', 'three rows per class');
SELECT privrisk.create_profile('regress_watch_k5', '{"k": 5}', 'five rows per class');
-- The closing error says when: shown without the time.
CREATE FUNCTION regress_watch.read_as_analyst(v text DEFAULT 'regress_watch.visits_release') RETURNS text
LANGUAGE plpgsql AS $$
BEGIN
    EXECUTE format('SELECT count(*) FROM %s', v);
    RETURN 'read';
EXCEPTION WHEN insufficient_privilege THEN
    RETURN regexp_replace(SQLERRM, ' at [0-9-]+ [0-9:+-]+ by ', ' at <time> by ');
END $$;

SET ROLE regress_watch_steward;
CREATE TABLE regress_watch.visits (zip text);
INSERT INTO regress_watch.visits SELECT (47001 + i % 3)::text FROM generate_series(1, 30) AS i;
SECURITY LABEL FOR privrisk ON COLUMN regress_watch.visits.zip IS 'quasi_identifier';
SELECT privrisk.create_policy('visits', 'regress_watch.visits');
SELECT privrisk.add_rule('visits', 'zip', 'hide', 'true');
SELECT privrisk.create_release_view('visits', 'regress_watch.visits_release');
GRANT SELECT ON regress_watch.visits_release TO regress_watch_analyst;
-- A second release view of the same policy, not watched itself.
SELECT privrisk.create_release_view('visits', 'regress_watch.visits_second');
GRANT SELECT ON regress_watch.visits_second TO regress_watch_analyst;
CREATE VIEW regress_watch.plain AS SELECT * FROM regress_watch.visits;

-- Bad input: a clear error, nothing recorded.
SELECT privrisk.watch('regress_watch.plain', 'regress_watch_k3');
SELECT privrisk.watch('regress_watch.visits', 'regress_watch_k3');
SELECT privrisk.watch('regress_watch.visits_release', 'no_such_profile');
SELECT privrisk.watch('regress_watch.visits_release', NULL);
SELECT privrisk.watch(NULL, 'regress_watch_k3');
SELECT privrisk.watch('regress_watch.visits_release', 'regress_watch_k3', NULL);
SELECT privrisk.unwatch('regress_watch.visits_release');
SELECT privrisk.recheck_view('regress_watch.visits_release');
SELECT count(*) AS watched, (SELECT count(*) FROM privrisk.audit_log) AS audits FROM privrisk.watched_view;

-- Watched: the first verdict, recorded in the audit log and the catalog.
SELECT v - 'audit_id' AS verdict FROM privrisk.watch('regress_watch.visits_release', 'regress_watch_k3', fail_closed => true) AS v;
SELECT privrisk.watch('regress_watch.visits_release', 'regress_watch_k3');  -- twice: refused, the watch unchanged
SELECT view, profile, fail_closed, watched_by, passed, failed, summary, checked_by,
       audit_id = (SELECT max(id) FROM privrisk.audit_log) AS audit_is_last FROM privrisk.watched_view;
SELECT source, audited_by, settings->>'profile' AS profile, result->'verdict'->>'summary' AS verdict
FROM privrisk.audit_log WHERE id = (SELECT audit_id FROM privrisk.watched_view);

-- A recheck that finds the same verdict notifies nobody.
CALL privrisk.recheck_watched();
SELECT v->'passed' AS passed, v->'previous' AS previous, v->'notified' AS notified
FROM privrisk.recheck_view('regress_watch.visits_release') AS v;

-- The table drifts: one row in a class of its own. The recheck records the failure.
INSERT INTO regress_watch.visits VALUES ('99999');
CALL privrisk.recheck_watched();
SELECT passed, failed, summary, audit_id = (SELECT max(id) FROM privrisk.audit_log) AS audit_is_last FROM privrisk.watched_view;
SELECT result->'verdict'->>'summary' AS logged FROM privrisk.audit_log WHERE id = (SELECT audit_id FROM privrisk.watched_view);
SELECT v->'passed' AS passed, v->'previous' AS previous, v->'notified' AS notified
FROM privrisk.recheck_view('regress_watch.visits_release') AS v;  -- still failing: no notification
-- The steward still reads the closed view (to fix it).
SELECT count(*) AS steward_reads FROM regress_watch.visits_release;
RESET ROLE;

-- The analyst is refused, with the reason; the catalog is not the analyst's to read.
SET ROLE regress_watch_analyst;
SELECT regress_watch.read_as_analyst();
-- Another view of the same policy does not reopen the release.
SELECT regress_watch.read_as_analyst('regress_watch.visits_second');
SELECT count(*) AS watches_seen FROM privrisk.watched_view;
RESET ROLE;

-- Another role may not watch, unwatch or recheck the steward's view, and its
-- recheck_watched() rechecks nothing of the steward's.
SET ROLE regress_watch_stranger;
SELECT privrisk.unwatch('regress_watch.visits_release');
SELECT privrisk.recheck_view('regress_watch.visits_release');
SELECT privrisk.watch('regress_watch.visits_release', 'regress_watch_k3');
CALL privrisk.recheck_watched();
RESET ROLE;
-- Owning the view is not enough: its policy's source must be the caller's too.
SET ROLE regress_watch_steward;
SELECT privrisk.create_release_view('visits', 'regress_watch.visits_other');
RESET ROLE;
ALTER VIEW regress_watch.visits_other OWNER TO regress_watch_stranger;
SET ROLE regress_watch_stranger;
SELECT privrisk.watch('regress_watch.visits_other', 'regress_watch_k3');
RESET ROLE;
SELECT view, passed, checked_by, audit_id = (SELECT max(id) FROM privrisk.audit_log WHERE audited_by = 'regress_watch_steward') AS audit_unchanged
FROM privrisk.watched_view;

-- The steward fixes the data; the recheck passes and the view opens.
SET ROLE regress_watch_steward;
DELETE FROM regress_watch.visits WHERE zip = '99999';
SELECT v - 'audit_id' AS verdict FROM privrisk.recheck_view('regress_watch.visits_release') AS v;
RESET ROLE;
SET ROLE regress_watch_analyst;
SELECT regress_watch.read_as_analyst();
SELECT regress_watch.read_as_analyst('regress_watch.visits_second');
RESET ROLE;

-- A recheck that cannot audit records a failing verdict naming the error (and closes the view).
SELECT privrisk.drop_profile('regress_watch_k3');
SET ROLE regress_watch_steward;
CALL privrisk.recheck_watched();
SELECT passed, failed, summary, audit_id FROM privrisk.watched_view;
RESET ROLE;
SET ROLE regress_watch_analyst;
SELECT regress_watch.read_as_analyst();
RESET ROLE;

-- Unwatched, the view opens; watched without fail_closed, a failing view stays open.
SET ROLE regress_watch_steward;
SELECT privrisk.unwatch('regress_watch.visits_release');
SELECT count(*) AS watched FROM privrisk.watched_view;
INSERT INTO regress_watch.visits VALUES ('99999');
SELECT v->'passed' AS passed, v->'summary' AS summary FROM privrisk.watch('regress_watch.visits_release', 'regress_watch_k5') AS v;
RESET ROLE;
SET ROLE regress_watch_analyst;
SELECT regress_watch.read_as_analyst();
RESET ROLE;

-- Dropping the view forgets its watch.
SET ROLE regress_watch_steward;
DROP VIEW regress_watch.visits_release;
SELECT count(*) AS watched FROM privrisk.watched_view;
RESET ROLE;

DROP SCHEMA regress_watch CASCADE;
SELECT privrisk.drop_profile('regress_watch_k5');
DROP ROLE regress_watch_steward, regress_watch_analyst, regress_watch_stranger;
