-- A running search's, lattice's or audit's progress as its backend shows it in
-- pg_stat_activity (docs/progress.md). security_invoker: PostgreSQL's own rule
-- decides whose queries the reader sees (its own roles', or all with pg_read_all_stats).
-- Only active backends: an idle one shows its last statement, and a search that
-- was cancelled or failed left its last progress text there.
CREATE OR REPLACE VIEW privrisk.progress WITH (security_invoker = true) AS
 SELECT a.pid,
    a.usename AS role,
    a.datname AS database,
    m.m[1] AS operation,
    (m.m[2])::bigint AS done,
    (m.m[3])::bigint AS total,
    m.m[4] AS unit,
    (m.m[5])::double precision AS elapsed_s,
    (m.m[6])::double precision AS remaining_s,
    a.query_start
   FROM pg_catalog.pg_stat_activity a,
    LATERAL pg_catalog.regexp_match(a.query, '^/\* privrisk (\w+): (\d+) of (\d+) ([a-z ]+?)(?: \([^)]*\))?, ([0-9.]+) s(?:, (?:at most )?about ([0-9]+) s left)? \*/'::text) m(m)
  WHERE a.state = 'active' AND (m.m IS NOT NULL);

GRANT SELECT ON TABLE privrisk.progress TO PUBLIC;
