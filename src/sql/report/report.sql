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
    lattice_note text;
    ck jsonb := '[]';
    class_sizes jsonb;
    ck_note text;
    distributions jsonb := '[]';
    verdicts jsonb;
    verdict jsonb;
    profile_line text;
    search_note text := '';
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

    -- The lattice, when it is not too large to draw.
    IF hierarchies IS NOT NULL AND array_position(hierarchies, NULL) IS NULL THEN
        FOR j IN 1 .. width LOOP
            nodes := nodes * (privrisk.hierarchy_height(hierarchies[j]) + 1);
        END LOOP;
        IF nodes <= 5000 THEN
            BEGIN
                -- The frontier: the nodes no other node beats on both loss and risk.
                WITH l AS (
                    SELECT array_to_string(n.node, ',') AS node, n.utility AS loss,
                           (n.measures ->> 'prosecutor_risk')::float8 AS risk, n.qualifies, n.node = chosen AS chosen
                      FROM privrisk.lattice(source, quasi_identifiers, hierarchies, sensitive, '{}', 'loss', profile) AS n)
                SELECT jsonb_agg(jsonb_build_object('node', l.node, 'loss', l.loss, 'risk', l.risk, 'qualifies', l.qualifies,
                                                    'chosen', l.chosen,
                                                    'frontier', NOT EXISTS (
                                                        SELECT 1 FROM l AS o
                                                         WHERE o.loss <= l.loss AND o.risk <= l.risk
                                                           AND (o.loss < l.loss OR o.risk < l.risk)))
                                 ORDER BY l.loss, l.risk, l.node)
                  INTO lattice_rows FROM l;
            EXCEPTION WHEN invalid_parameter_value THEN
                lattice_note := 'The profile sets a threshold the lattice cannot evaluate per node (records_at_risk, dt_risk or epsilon).';
            END;
        ELSE
            lattice_note := format('The lattice has %s nodes: too many to draw (at most 5000).', nodes);
        END IF;
    ELSE
        lattice_note := 'Every quasi-identifier needs a hierarchy for the lattice.';
    END IF;

    -- Each quasi-identifier's values in the source and in the release: the 25 most frequent of each.
    FOR j IN 1 .. width LOOP
        distributions := distributions || COALESCE((
            SELECT jsonb_agg(jsonb_build_object('column', quasi_identifiers[j], 'release', r.release,
                                                'value', COALESCE(r.value, '⊥'), 'rows', r.rows)
                             ORDER BY r.release, r.rows DESC, r.value)
              FROM (SELECT 'source' AS release, x.class[1] AS value, privrisk.hist_size(x.hist) AS rows,
                           row_number() OVER (ORDER BY privrisk.hist_size(x.hist) DESC, x.class[1]) AS rank
                      FROM privrisk.classes(source, ARRAY[quasi_identifiers[j]], ARRAY[hier[j]], ARRAY[0], NULL) AS x
                    UNION ALL
                    SELECT 'release', x.class[1], privrisk.hist_size(x.hist),
                           row_number() OVER (ORDER BY privrisk.hist_size(x.hist) DESC, x.class[1])
                      FROM privrisk.classes(source, ARRAY[quasi_identifiers[j]], ARRAY[hier[j]], ARRAY[chosen[j]], NULL) AS x) AS r
             WHERE r.rank <= 25), '[]');
    END LOOP;

    data := jsonb_build_object(
        'source', source::text, 'profile', profile, 'quasi_identifiers', to_jsonb(quasi_identifiers),
        'levels', to_jsonb(chosen), 'sensitive', sensitive,
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
        'lattice', lattice_rows, 'lattice_note', lattice_note,
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
        'profile_line', profile_line,
        'verdicts', verdicts), data);
END $$;
