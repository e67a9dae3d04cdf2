CREATE OR REPLACE FUNCTION privrisk.report_page(model jsonb, data jsonb) RETURNS text
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_report_page';

-- A verdict as the page shows it: every cell a text, numbers formatted here, under fixed settings.
CREATE OR REPLACE FUNCTION privrisk.report_checks(heading text, verdict jsonb) RETURNS jsonb
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    SET extra_float_digits TO '1'
    RETURN jsonb_build_object(
        'heading', heading,
        'publishable', COALESCE((verdict ->> 'publishable')::boolean, false),
        'summary', upper(left(verdict ->> 'summary', 1)) || substr(verdict ->> 'summary', 2),
        'checks', COALESCE((SELECT jsonb_agg(jsonb_build_object(
               'passed', COALESCE(c.passed, false), 'measure', c.measure, 'value', COALESCE(c.value::text, ''),
               'shown_value', COALESCE(round(c.value::numeric, 4)::text, '—'), 'comparison', c.comparison,
               'threshold', COALESCE(c.threshold::text, ''), 'margin', COALESCE(round(c.margin::numeric, 4)::text, '—'),
               'note', COALESCE(c.note, '')) ORDER BY c.ordinality)
             FROM ROWS FROM (jsonb_to_recordset(verdict -> 'checks')
                             AS (measure text, value float8, comparison text, threshold float8, passed boolean,
                                 margin float8, note text)) WITH ORDINALITY
                  AS c(measure, value, comparison, threshold, passed, margin, note, ordinality)),
            '[]'::jsonb));

-- search()'s "found": false as the report's first verdict table, or NULL when something was found.
-- "nothing_found" is read defensively (another part of privrisk writes it): its summary if it is a
-- text, and each object of its "at_top" array (a constraint measured at the top node), each member
-- kept only with the type it should have.
CREATE OR REPLACE FUNCTION privrisk.report_nothing_found(searched jsonb) RETURNS jsonb
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    RETURN CASE WHEN jsonb_typeof(searched -> 'found') = 'boolean' AND NOT (searched ->> 'found')::boolean THEN
        jsonb_build_object(
            'publishable', false,
            'summary', 'no release of the lattice meets the profile'
                       || CASE WHEN jsonb_typeof(searched #> '{nothing_found,summary}') = 'string'
                               THEN ': ' || (searched #>> '{nothing_found,summary}') ELSE '' END,
            'checks', COALESCE((
                SELECT jsonb_agg(jsonb_build_object(
                           'measure', CASE WHEN jsonb_typeof(a.value -> 'constraint') = 'string' THEN a.value ->> 'constraint' ELSE '' END,
                           'comparison', '',
                           'value', CASE WHEN jsonb_typeof(a.value -> 'value') = 'number' THEN a.value -> 'value' END,
                           'threshold', CASE WHEN jsonb_typeof(a.value -> 'threshold') = 'number' THEN a.value -> 'threshold' END,
                           'passed', CASE WHEN jsonb_typeof(a.value -> 'passed') = 'boolean' THEN a.value -> 'passed' END,
                           'note', 'at the top node (every quasi-identifier ⊥)') ORDER BY a.ordinality)
                  FROM jsonb_array_elements(CASE WHEN jsonb_typeof(searched #> '{nothing_found,at_top}') = 'array'
                                                 THEN searched #> '{nothing_found,at_top}' ELSE '[]' END)
                       WITH ORDINALITY AS a(value, ordinality)
                 WHERE jsonb_typeof(a.value) = 'object'), '[]'))
    END;

-- What the page says about suppressed records: the search's node that suppresses rows (the page then
-- measures the source: audit() and classes() measure a generalization without suppression), and a
-- release whose audit counts suppressed rows (a release view whose policy suppresses records).
CREATE OR REPLACE FUNCTION privrisk.report_suppression(quasi_identifiers text[], searched jsonb, audited jsonb) RETURNS text[]
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    RETURN array_remove(ARRAY[
        CASE WHEN jsonb_typeof(searched -> 'found') = 'boolean' AND (searched ->> 'found')::boolean
                  AND jsonb_typeof(searched #> '{result,rows_suppressed}') = 'number'
                  AND (searched #>> '{result,rows_suppressed}')::numeric > 0
                  AND jsonb_typeof(searched #> '{result,node}') = 'array' THEN
            format('The search''s most useful release under this profile, at %s, suppresses %s rows: the records of '
                   'the classes that fail a per-class threshold are withheld (every quasi-identifier ⊥). This page '
                   'measures the source as it is; to measure that release, apply it to a policy and report or audit '
                   'its release view (docs/release.md).',
                   (SELECT string_agg(COALESCE(u.q, '?') || ' ' || u.l, ', ' ORDER BY u.i)
                      FROM unnest(quasi_identifiers, ARRAY(SELECT jsonb_array_elements_text(searched #> '{result,node}')))
                           WITH ORDINALITY AS u(q, l, i)),
                   searched #>> '{result,rows_suppressed}')
        END,
        CASE WHEN jsonb_typeof(audited -> 'rows_suppressed') = 'number' AND (audited ->> 'rows_suppressed')::numeric > 0 THEN
            format('The release withholds %s of %s rows: its policy suppresses the records of the classes that fail '
                   'a per-class threshold (docs/release.md, "Record suppression"). The measures are those of the '
                   'rows it releases.', audited ->> 'rows_suppressed', COALESCE(audited ->> 'rows', '?'))
        END], NULL);
