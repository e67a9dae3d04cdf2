CREATE OR REPLACE FUNCTION privrisk.report_asset(name text) RETURNS text
    LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_report_asset';

CREATE OR REPLACE FUNCTION privrisk.html_text(value text) RETURNS text
    LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    RETURN replace(replace(replace(replace(replace(replace(value, '&', '&amp;'), '<', '&lt;'), '>', '&gt;'), '"', '&quot;'),
                           '''', '&#39;'), '/', '&#47;');

CREATE OR REPLACE FUNCTION privrisk.report_verdict(heading text, verdict jsonb) RETURNS text
    LANGUAGE sql IMMUTABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    RETURN '<h2>' || privrisk.html_text(heading) || '</h2>'
        || '<div class="verdict ' || CASE WHEN (verdict ->> 'publishable')::boolean THEN 'pass' ELSE 'fail' END || '">'
        || privrisk.html_text(initcap(left(verdict ->> 'summary', 1)) || substr(verdict ->> 'summary', 2)) || '</div>'
        || '<table class="checks"><thead><tr><th>measure</th><th>value</th><th></th><th>threshold</th><th>outcome</th>'
        || '<th>margin</th><th>note</th></tr></thead><tbody>'
        || COALESCE((SELECT string_agg(
               '<tr class="' || CASE WHEN c.passed THEN 'passed' ELSE 'failed' END || '" data-measure="'
               || privrisk.html_text(c.measure) || '" data-value="' || COALESCE(c.value::text, '') || '">'
               || '<td>' || privrisk.html_text(c.measure) || '</td>'
               || '<td class="num">' || COALESCE(round(c.value::numeric, 4)::text, '—') || '</td>'
               || '<td>' || privrisk.html_text(c.comparison) || '</td>'
               || '<td class="num">' || c.threshold::text || '</td>'
               || '<td class="outcome">' || CASE WHEN c.passed THEN 'pass' ELSE 'fail' END || '</td>'
               || '<td class="num">' || COALESCE(round(c.margin::numeric, 4)::text, '—') || '</td>'
               || '<td>' || privrisk.html_text(COALESCE(c.note, '')) || '</td></tr>', '' ORDER BY c.ordinality)
             FROM ROWS FROM (jsonb_to_recordset(verdict -> 'checks')
                             AS (measure text, value float8, comparison text, threshold float8, passed boolean,
                                 margin float8, note text)) WITH ORDINALITY
                  AS c(measure, value, comparison, threshold, passed, margin, note, ordinality)),
            '') || '</tbody></table>';
