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
