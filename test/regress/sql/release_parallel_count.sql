-- Record suppression's count in parallel (docs/release.md, "Record suppression"): a
-- serial read through a suppressing release counts the source with parallel workers
-- taking some of its blocks, then replays each row's class from the count's record.
-- It releases exactly the rows, with exactly the values, of a count by one process:
-- the two reads' digests are compared here, and with the leader counting nothing
-- (parallel_leader_participation off) every class comes from the workers' counts.
CREATE TABLE pc_source (id int PRIMARY KEY, age int, zip text, sex text, note text);
INSERT INTO pc_source
SELECT i, 20 + (i * 7919) % 60, 'z' || (i::bigint * 104729) % 400, CASE WHEN i % 3 = 0 THEN 'f' ELSE 'm' END,
       CASE WHEN i % 11 = 0 THEN NULL ELSE 'n' || i END
FROM generate_series(1, 30000) AS i;
UPDATE pc_source SET zip = NULL WHERE id % 97 = 0;  -- NULLs among the quasi-identifiers, rows moved
SELECT privrisk.load_hierarchy('pc_age', string_agg(v || ';' || (v / 10 * 10) || '-' || (v / 10 * 10 + 9) || ';*',
       E'\n' ORDER BY v)) AS pc_age FROM generate_series(20, 79) AS v;
SELECT privrisk.create_policy('pc', 'pc_source');
SELECT privrisk.add_rule('pc', 'age', 'gen', 'false', 'pc_age', 1);
SELECT privrisk.add_rule('pc', 'sex', 'hide', 'id % 13 = 0');  -- disclosed where id % 13 = 0: each row's own condition
SELECT privrisk.set_suppression('pc', ARRAY['age', 'zip', 'sex'], '{"k": 5, "max_suppression": 1}');
SELECT privrisk.create_release_view('pc', 'pc_view');
ALTER TABLE pc_source SET (parallel_workers = 3);
-- The read's rows, rows whose class was replayed, and workers that counted (EXPLAIN ANALYZE).
CREATE FUNCTION pc_explain() RETURNS TABLE (released bigint, replayed bigint, count_workers int)
LANGUAGE plpgsql AS $$
DECLARE
    p json;
BEGIN
    EXECUTE 'EXPLAIN (ANALYZE, FORMAT JSON, TIMING OFF, SUMMARY OFF) SELECT * FROM pc_view' INTO p;
    p := p->0->'Plan';
    RETURN QUERY SELECT (p->>'Actual Rows')::bigint, (p->>'Suppression Rows Replayed')::bigint,
                        (p->>'Suppression Count Workers')::int;
END $$;
SET parallel_setup_cost = 1e9;  -- the plan stays serial; the count goes parallel all the same
SET min_parallel_table_scan_size = 0;

-- By one process: the reference, and the numbers of the decision.
SET max_parallel_workers_per_gather = 0;
SELECT count(*) AS released, md5(string_agg(v::text, '|' ORDER BY v.id)) AS serial_digest FROM pc_view AS v \gset
SELECT :released AS released, privrisk.release_suppression('pc_view') AS decision;
-- What SQL finds: the rows of classes (released age, zip, sex) of at least 5 rows.
SELECT count(*) = :released AS sql_agrees
FROM (SELECT count(*) OVER (PARTITION BY privrisk.gen(age, 'pc_age', 1), zip,
                                         CASE WHEN id % 13 = 0 THEN sex END) AS n
      FROM pc_source) AS c WHERE n >= 5;

-- Three workers and the leader, then three workers alone: the same rows, every one replayed.
SET max_parallel_workers_per_gather = 4;
SELECT * FROM pc_explain();
SELECT count(*) = :released AS same_count, md5(string_agg(v::text, '|' ORDER BY v.id)) = :'serial_digest' AS same_rows
FROM pc_view AS v;
SET parallel_leader_participation = off;
SELECT * FROM pc_explain();
SELECT count(*) = :released AS same_count, md5(string_agg(v::text, '|' ORDER BY v.id)) = :'serial_digest' AS same_rows
FROM pc_view AS v;
RESET parallel_leader_participation;

-- A condition that fails on a row, evaluated by a worker: a reader of the view alone gets
-- the error without its text (it would name the row's value), as from the leader.
SELECT privrisk.create_policy('pc_cast', 'pc_source');
SELECT privrisk.add_rule('pc_cast', 'zip', 'hide', 'note::int > 0');
SELECT privrisk.set_suppression('pc_cast', ARRAY['zip'], '{"k": 5, "max_suppression": 1}');
SELECT privrisk.create_release_view('pc_cast', 'pc_cast_view');
CREATE ROLE regress_pc_analyst;
GRANT SELECT ON pc_cast_view TO regress_pc_analyst;
SET parallel_leader_participation = off;
SET ROLE regress_pc_analyst;
SELECT count(*) FROM pc_cast_view;
RESET ROLE;
RESET parallel_leader_participation;
DROP VIEW pc_cast_view;
SELECT privrisk.drop_policy('pc_cast');
DROP ROLE regress_pc_analyst;

-- A cursor opened in a SECURITY DEFINER function and read outside it: its workers build the
-- release as the function's owner, as the leader did, not as the reader, who owns a policy
-- whose name is the key of the one opened (the reader's own table, all in one class).
CREATE FUNCTION pc_open() RETURNS refcursor LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
DECLARE
    c refcursor := 'pc_cursor';
BEGIN
    OPEN c FOR SELECT * FROM privrisk.release('public.pc') AS r(id int, age text, zip text, sex text, note text);
    RETURN c;
END $$;
CREATE ROLE regress_pc_reader;
GRANT EXECUTE ON FUNCTION pc_open() TO regress_pc_reader;
CREATE SCHEMA regress_pc_decoy AUTHORIZATION regress_pc_reader;
SET ROLE regress_pc_reader;
CREATE TABLE regress_pc_decoy.t (id int, age int, zip text, sex text, note text);
INSERT INTO regress_pc_decoy.t SELECT i, 20, 'z0', 'f', 'n' FROM generate_series(1, 30000) AS i;
SELECT privrisk.create_policy('public.pc', 'regress_pc_decoy.t');
SELECT privrisk.set_suppression('regress_pc_decoy."public.pc"', ARRAY['zip'], '{"k": 5, "max_suppression": 1}');
SET max_parallel_workers_per_gather = 4;
SET parallel_leader_participation = off;
BEGIN;
SELECT pc_open();
CREATE TEMP TABLE pc_fetched (n bigint) ON COMMIT DROP;
DO $$ DECLARE c refcursor := 'pc_cursor'; r record; n bigint := 0; BEGIN
    LOOP FETCH c INTO r; EXIT WHEN NOT FOUND; n := n + 1; END LOOP;
    INSERT INTO pc_fetched VALUES (n);
END $$;
SELECT n = :released AS same_count FROM pc_fetched;
COMMIT;
RESET parallel_leader_participation;
RESET max_parallel_workers_per_gather;
RESET ROLE;
SELECT privrisk.drop_policy('regress_pc_decoy."public.pc"');
DROP SCHEMA regress_pc_decoy CASCADE;
DROP FUNCTION pc_open();
DROP ROLE regress_pc_reader;

-- Too small a source for a parallel read (min_parallel_table_scan_size): one process counts.
RESET min_parallel_table_scan_size;
ALTER TABLE pc_source RESET (parallel_workers);
SELECT * FROM pc_explain();
RESET ALL;
DROP FUNCTION pc_explain();
DROP VIEW pc_view;
SELECT privrisk.drop_policy('pc');
DROP TABLE pc_source;
SELECT privrisk.drop_hierarchy('pc_age');
