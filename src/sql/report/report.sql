CREATE OR REPLACE FUNCTION privrisk.report(source regclass, profile text, quasi_identifiers text[] DEFAULT NULL::text[], sensitive text DEFAULT NULL::text, hierarchies text[] DEFAULT NULL::text[], levels integer[] DEFAULT NULL::integer[], title text DEFAULT NULL::text) RETURNS text
    LANGUAGE plpgsql STABLE PARALLEL RESTRICTED
    SET search_path TO 'pg_catalog', 'pg_temp'
    -- How text is made here is fixed, whatever the session says: literals are standard strings
    -- (standard_conforming_strings off made '\u003c' a '<' in 0.13), numbers and dates print alike.
    SET standard_conforming_strings TO 'on'
    SET backslash_quote TO 'safe_encoding'
    SET extra_float_digits TO '1'
    SET "DateStyle" TO 'ISO, YMD'
    SET "IntervalStyle" TO 'postgres'
    SET bytea_output TO 'hex'
    SET lc_numeric TO 'C'
    SET quote_all_identifiers TO 'off'
    AS $$
DECLARE
    width integer;
    hier text[];
    zeros integer[];
    chosen integer[];
    searched jsonb;
    before jsonb;
    after jsonb;
    nodes numeric := 1;  -- 26 quasi-identifiers of height 5 overflowed a bigint in 0.13
    j integer;
    data jsonb;
    lattice_rows jsonb;
    lattice_count bigint;
    lattice_frontier jsonb;
    lattice_chosen jsonb;
    lattice_bins jsonb;
    lattice_note text;
    ck jsonb := '[]';
    class_sizes jsonb;
    ck_note text;
    distributions jsonb := '[]';
    verdicts jsonb;
    verdict jsonb;
    profile_line text;
    search_note text := '';
    notes text[] := '{}';
    nothing jsonb;
    level_names text[];
BEGIN
    -- What the call omits comes from the column labels (docs/labels.md).
    SELECT a.quasi_identifiers, a.hierarchies, a.sensitive INTO quasi_identifiers, hierarchies, sensitive
      FROM privrisk.labelled_arguments(source, quasi_identifiers, hierarchies, sensitive, 'report') AS a;
    width := cardinality(quasi_identifiers);
    hier := COALESCE(hierarchies, array_fill(NULL::text, ARRAY[width]));
    zeros := array_fill(0, ARRAY[width]);
    PERFORM 1 FROM privrisk.risk_profile p WHERE p.name = profile;
    IF NOT FOUND THEN
        RAISE EXCEPTION 'risk profile "%" does not exist', profile USING ERRCODE = 'undefined_object';
    END IF;

    -- The release reported: the levels given, else the node the search finds under the profile
    -- (when it suppresses no row), else the source as it is.
    chosen := levels;
    IF chosen IS NULL AND hierarchies IS NOT NULL THEN
        BEGIN
            searched := privrisk.search(source, quasi_identifiers, hierarchies, sensitive, '{}', 'loss', profile);
            IF (searched ->> 'found')::boolean AND (searched #>> '{result,rows_suppressed}')::bigint = 0 THEN
                chosen := ARRAY(SELECT jsonb_array_elements_text(searched -> 'result' -> 'node')::integer);
            END IF;
        EXCEPTION WHEN invalid_parameter_value THEN
            searched := NULL;  -- a profile the search cannot take as constraints: report the source
        WHEN program_limit_exceeded THEN
            -- a lattice too large to search (26 quasi-identifiers, say): report the source, and say so
            GET STACKED DIAGNOSTICS search_note = MESSAGE_TEXT;
            search_note := ' The search did not run: ' || search_note || '.';
        END;
    END IF;
    chosen := COALESCE(chosen, zeros);
    before := privrisk.audit(source, quasi_identifiers, sensitive, hier, zeros, '{}', profile);
    after := privrisk.audit(source, quasi_identifiers, sensitive, hier, chosen, '{}', profile);

    -- The verdict tables: the source as it is, and the release (when it differs).
    verdicts := jsonb_build_array(privrisk.report_checks('The source as it is', before -> 'verdict'));
    IF chosen <> zeros THEN
        verdicts := jsonb_build_array(privrisk.report_checks(
            'The release at ' || (SELECT string_agg(q || ' ' || l, ', ' ORDER BY i)
                                  FROM unnest(quasi_identifiers, chosen) WITH ORDINALITY AS u(q, l, i))
            || CASE WHEN searched IS NOT NULL AND levels IS NULL THEN ' (found by the search)' ELSE '' END,
            after -> 'verdict')) || verdicts;
    END IF;
    -- No node qualifies: say so first, with why. Suppressed records: how many, and why.
    nothing := privrisk.report_nothing_found(searched);
    IF nothing IS NOT NULL THEN
        verdicts := jsonb_build_array(privrisk.report_checks('No release qualifies', nothing)) || verdicts;
    END IF;
    notes := privrisk.report_suppression(quasi_identifiers, searched, before);
    -- What each level means, from its hierarchy: an interval's width, a prefix's characters kept, a
    -- date's unit, or a sample of a file hierarchy's labels at that level (in the file's order).
    level_names := ARRAY(
        SELECT u.q || ': ' || CASE
                   WHEN u.l = 0 THEN 'as it is'
                   WHEN h.name IS NULL THEN 'level ' || u.l
                   WHEN u.l >= h.height THEN '⊥ (withheld)'
                   WHEN h.kind = 'interval' THEN format('intervals of %s', h.widths[u.l])
                   WHEN h.kind = 'prefix' THEN format('%s of %s characters kept', h.max_len - u.l, h.max_len)
                   WHEN h.kind = 'date' THEN (ARRAY['month', 'year'])[u.l]
                   ELSE (SELECT string_agg(t.label, ', ' ORDER BY t.first)
                                || CASE WHEN max(t.groups) > 3 THEN format(', … (%s groups)', max(t.groups)) ELSE '' END
                           FROM (SELECT g.label, g.first, count(*) OVER () AS groups
                                   FROM (SELECT f.path[u.l + 1] AS label, min(f.line) AS first FROM privrisk.hierarchy_leaf f
                                          WHERE f.hierarchy = h.name GROUP BY 1) AS g
                                  ORDER BY g.first LIMIT 3) AS t)
               END
          FROM unnest(quasi_identifiers, hier, chosen) WITH ORDINALITY AS u(q, hn, l, i)
          LEFT JOIN privrisk.hierarchy h ON h.name = u.hn
         ORDER BY u.i);
    notes := ('Levels reported: ' || array_to_string(level_names, '; ') || '. ⊥ marks a value withheld: the release '
              'shows it as NULL.') || notes;
    -- Whose profile it is: the verdict names its owner, or says the owner role was dropped.
    verdict := before -> 'verdict';
    profile_line := CASE WHEN (verdict ->> 'profile_orphaned')::boolean
        THEN format('Risk profile "%s", orphaned: its owner role %s no longer exists, and only a superuser may replace or drop it.',
                    profile, verdict ->> 'profile_owner_was')
        ELSE format('Risk profile "%s", owned by role %s.', profile, verdict ->> 'profile_owner') END;

    -- The release's classes, read once: how many have each size, and (with a sensitive column) the
    -- (c,k) curves for implications and negated atoms, k = 0..10.
    WITH classes AS MATERIALIZED (
        SELECT x.hist FROM privrisk.classes(source, quasi_identifiers, hier, chosen, sensitive) AS x)
    SELECT (SELECT COALESCE(jsonb_agg(jsonb_build_object('size', s.size, 'classes', s.classes) ORDER BY s.size), '[]')
              FROM (SELECT privrisk.hist_size(c.hist) AS size, count(*) AS classes FROM classes c GROUP BY 1) AS s),
           CASE WHEN sensitive IS NOT NULL THEN (
               SELECT COALESCE(jsonb_agg(jsonb_build_object('k', c.k - 1, 'disclosure', c.d, 'facts', c.facts)
                                         ORDER BY c.facts, c.k), '[]')
                 FROM (SELECT privrisk.ck_disclosure_curve(x.hist, 10) AS imp,
                              privrisk.neg_disclosure_curve(x.hist, 10) AS neg FROM classes x) AS curves,
                      LATERAL (SELECT k, d, 'implications' AS facts FROM unnest(curves.imp) WITH ORDINALITY AS i(d, k)
                               UNION ALL
                               SELECT k, d, 'negated atoms' FROM unnest(curves.neg) WITH ORDINALITY AS n(d, k)) AS c)
           ELSE '[]' END
      INTO class_sizes, ck;
    IF sensitive IS NULL THEN
        ck_note := 'No sensitive column: no (c,k) disclosure.';
    END IF;

    -- The lattice, at any size lattice() lists: its frontier and the reported node always; every node
    -- as a point up to 2,000 nodes, else the nodes counted in a 40 x 40 grid of loss and risk (the
    -- page stays small and fast: docs/report.md).
    IF hierarchies IS NOT NULL AND array_position(hierarchies, NULL) IS NULL THEN
        FOR j IN 1 .. width LOOP
            nodes := nodes * (privrisk.hierarchy_height(hierarchies[j]) + 1);
        END LOOP;
        IF nodes > 1000000 THEN
            lattice_note := format('The lattice has %s nodes: more than lattice() lists (1000000), not drawn.', nodes);
        ELSE BEGIN
            -- A node is on the frontier when no other node beats it on both loss and risk: no node of
            -- lower loss has a risk as low, and none of the same loss has a lower risk.
            WITH l AS MATERIALIZED (
                SELECT array_to_string(n.node, ',') AS node, n.utility AS loss,
                       (n.measures ->> 'prosecutor_risk')::float8 AS risk, n.qualifies, n.node = chosen AS chosen
                  FROM privrisk.lattice(source, quasi_identifiers, hierarchies, sensitive, '{}', 'loss', profile) AS n),
            by_loss AS (
                SELECT g.loss, g.lowest,
                       min(g.lowest) OVER (ORDER BY g.loss ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS lowest_before
                  FROM (SELECT l.loss, min(l.risk) AS lowest FROM l WHERE l.risk IS NOT NULL GROUP BY l.loss) AS g),
            f AS (
                SELECT l.*, (l.risk IS NOT NULL AND l.risk = b.lowest AND (b.lowest_before IS NULL OR b.lowest_before > l.risk))
                            AS frontier
                  FROM l LEFT JOIN by_loss AS b ON b.loss = l.loss)
            SELECT (SELECT count(*) FROM f),
                   (SELECT jsonb_agg(jsonb_build_object('node', f.node, 'loss', f.loss, 'risk', f.risk, 'qualifies', f.qualifies,
                                                        'chosen', f.chosen, 'frontier', f.frontier) ORDER BY f.loss, f.risk, f.node)
                      FROM f HAVING count(*) <= 2000),
                   (SELECT COALESCE(jsonb_agg(jsonb_build_object('node', f.node, 'loss', f.loss, 'risk', f.risk,
                                                                 'qualifies', f.qualifies) ORDER BY f.loss, f.risk, f.node), '[]')
                      FROM f WHERE f.frontier),
                   (SELECT COALESCE(jsonb_agg(jsonb_build_object('node', f.node, 'loss', f.loss, 'risk', f.risk,
                                                                 'qualifies', f.qualifies)), '[]')
                      FROM f WHERE f.chosen AND f.risk IS NOT NULL),
                   (SELECT jsonb_agg(jsonb_build_object('loss_lo', c.x / 40.0, 'loss_hi', (c.x + 1) / 40.0,
                                                        'risk_lo', c.y / 40.0, 'risk_hi', (c.y + 1) / 40.0,
                                                        'nodes', c.nodes, 'qualifying', c.qualifying) ORDER BY c.x, c.y)
                      FROM (SELECT least(floor(f.loss * 40), 39)::integer AS x, least(floor(f.risk * 40), 39)::integer AS y,
                                   count(*) AS nodes, count(*) FILTER (WHERE f.qualifies) AS qualifying
                              FROM f WHERE f.risk IS NOT NULL GROUP BY 1, 2) AS c
                     WHERE (SELECT count(*) FROM f) > 2000)
              INTO lattice_count, lattice_rows, lattice_frontier, lattice_chosen, lattice_bins;
        EXCEPTION WHEN invalid_parameter_value THEN
            lattice_note := 'The profile sets a threshold the lattice cannot evaluate per node (records_at_risk, dt_risk or epsilon).';
        WHEN program_limit_exceeded THEN
            GET STACKED DIAGNOSTICS lattice_note = MESSAGE_TEXT;
            lattice_note := format('The lattice has %s nodes: not drawn (%s).', nodes, lattice_note);
        END; END IF;
    ELSE
        lattice_note := 'Every quasi-identifier needs a hierarchy for the lattice.';
    END IF;

    -- Each quasi-identifier's values in the source and in the release: the 25 most frequent of each,
    -- drawn in the hierarchy's order ("order"): a file hierarchy's line order, else by the leading
    -- number (ages, intervals), else as text; ⊥ last.
    FOR j IN 1 .. width LOOP
        distributions := distributions || COALESCE((
            SELECT jsonb_agg(jsonb_build_object('column', quasi_identifiers[j], 'release', r.release,
                                                'value', COALESCE(r.value, '⊥'), 'rows', r.rows,
                                                'order', r.position,
                                                'level', CASE WHEN r.release = 'source' THEN quasi_identifiers[j] || ': as it is'
                                                              ELSE level_names[j] END)
                             ORDER BY r.release, r.position)
              FROM (SELECT v.*, row_number() OVER (PARTITION BY v.release ORDER BY v.value IS NULL,
                                   (SELECT min(f.line) FROM privrisk.hierarchy_leaf f
                                     WHERE f.hierarchy = hier[j] AND f.path[v.level + 1] = v.value),
                                   substring(v.value FROM '^[[(]?(-?[0-9]{1,100}(?:[.][0-9]{1,100})?)')::numeric, v.value) AS position
                      FROM (SELECT 'source' AS release, 0 AS level, x.class[1] AS value, privrisk.hist_size(x.hist) AS rows,
                                   row_number() OVER (ORDER BY privrisk.hist_size(x.hist) DESC, x.class[1]) AS rank
                              FROM privrisk.classes(source, ARRAY[quasi_identifiers[j]], ARRAY[hier[j]], ARRAY[0], NULL) AS x
                            UNION ALL
                            SELECT 'release', chosen[j], x.class[1], privrisk.hist_size(x.hist),
                                   row_number() OVER (ORDER BY privrisk.hist_size(x.hist) DESC, x.class[1])
                              FROM privrisk.classes(source, ARRAY[quasi_identifiers[j]], ARRAY[hier[j]], ARRAY[chosen[j]], NULL) AS x) AS v
                     WHERE v.rank <= 25) AS r), '[]');
    END LOOP;

    data := jsonb_build_object(
        'source', source::text, 'profile', profile, 'quasi_identifiers', to_jsonb(quasi_identifiers),
        'levels', to_jsonb(chosen), 'level_names', to_jsonb(level_names), 'sensitive', sensitive,
        'class_sizes', class_sizes,
        -- A row of a class of size s is at risk 1/s: the share of rows above a threshold 1/s is
        -- the share of rows in classes smaller than s.
        'records_at_risk', COALESCE((
            SELECT jsonb_agg(jsonb_build_object('threshold', 1.0 / s.size,
                                                'share', COALESCE(s.smaller, 0)::float8 / s.total) ORDER BY s.size DESC)
              FROM (SELECT size, sum(size * classes) OVER (ORDER BY size ROWS BETWEEN UNBOUNDED PRECEDING AND 1 PRECEDING) AS smaller,
                           sum(size * classes) OVER () AS total
                      FROM jsonb_to_recordset(class_sizes) AS c(size bigint, classes bigint)) AS s), '[]'),
        'risk_threshold', (SELECT COALESCE((p.thresholds ->> 'risk_threshold')::float8,
                                           CASE WHEN p.thresholds ? 'records_at_risk' THEN 0.2 END,
                                           (p.thresholds ->> 'max_risk')::float8)
                             FROM privrisk.risk_profile p WHERE p.name = profile),
        'ck', ck, 'ck_note', ck_note,
        'ck_c', (SELECT (p.thresholds ->> 'c')::float8 FROM privrisk.risk_profile p WHERE p.name = profile),
        'lattice', lattice_rows, 'lattice_note', lattice_note, 'lattice_nodes', lattice_count,
        'lattice_frontier', lattice_frontier, 'lattice_chosen', lattice_chosen, 'lattice_bins', lattice_bins,
        'distributions', distributions,
        'budget', COALESCE((
            SELECT jsonb_agg(jsonb_build_object('spent_at', l.spent_at, 'epsilon', l.epsilon, 'mechanism', l.mechanism,
                                                'cumulative', l.cumulative) ORDER BY l.spent_at, l.id)
              FROM (SELECT g.*, sum(g.epsilon) OVER (ORDER BY g.spent_at, g.id) AS cumulative
                      FROM privrisk.budget_ledger g WHERE g.relation = source) AS l), '[]'),
        'budget_epsilon', (SELECT b.epsilon FROM privrisk.budget b WHERE b.relation = source));

    -- The page is written from data: report_page escapes every text (docs/report.md).
    RETURN privrisk.report_page(jsonb_build_object(
        'title', COALESCE(title, 'Privacy risk of ' || source::text),
        'version', (SELECT e.extversion FROM pg_extension e WHERE e.extname = 'privrisk'),
        'meta', format('Source %s, quasi-identifiers %s, sensitive %s; %s rows. Made %s by %s.%s',
                       source::text, array_to_string(quasi_identifiers, ', '), COALESCE(sensitive, 'none'),
                       before ->> 'rows', to_char(now(), 'YYYY-MM-DD HH24:MI TZ'), current_user, search_note),
        'profile_line', profile_line, 'notes', to_jsonb(notes),
        'verdicts', verdicts), data);
END $$;
