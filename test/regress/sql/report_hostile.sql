-- The report against hostile data and a hostile session (issue #33). Whatever the values, column
-- names, hierarchy labels and title hold, and whatever the session sets, the page holds its own four
-- scripts and no other element, the data island reads back as the exact values, and every text is
-- escaped. (test/report/run_report.py opens such a page in Chromium and looks for any script that ran.)
CREATE ROLE rh_steward;
GRANT EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean), privrisk.drop_profile(text) TO rh_steward;
SET ROLE rh_steward;
SELECT privrisk.create_profile('rh_board', '{"k": 2}', 'the board''s rule');
RESET ROLE;
CREATE TABLE rh (id integer, "</script><script>document.title='col'</script>" text, "<!--<script>" text, diagnosis text);
INSERT INTO rh
SELECT i, (ARRAY[$$</script><script>document.title="v"</script>$$, $$\'-alert(1)-\'$$, '<!--<script>',
                 'a' || chr(8232) || 'b' || chr(8233), '"><img src=x onerror=alert(1)>'])[1 + i % 5],
       (ARRAY['x', 'y'])[1 + i % 2], (ARRAY['flu', 'cold'])[1 + i % 3 % 2]
FROM generate_series(1, 200) AS i;
SELECT privrisk.load_hierarchy('rh_h', E'x;</script><img src=x onerror=document.title=1>;*\ny;</script><img src=x onerror=document.title=1>;*');
SECURITY LABEL FOR privrisk ON COLUMN rh."</script><script>document.title='col'</script>" IS 'quasi_identifier';
SECURITY LABEL FOR privrisk ON COLUMN rh."<!--<script>" IS 'quasi_identifier(rh_h)';
SECURITY LABEL FOR privrisk ON COLUMN rh.diagnosis IS 'sensitive';

-- 0.13 built the data island with '\u003c' literals: with standard_conforming_strings off (any
-- session may set it, PGOPTIONS too) they read as '<', and a value's "</script>" ended the element.
SET standard_conforming_strings = off;
SET extra_float_digits = -15;
SET "DateStyle" = 'SQL, DMY';
SET quote_all_identifiers = on;
CREATE TABLE rh_page AS
SELECT privrisk.report('rh', 'rh_board', levels => ARRAY[0, 1],
                       title => $$</title><script>document.title='t'</script>\'/*@DATA@*/$$) AS page;
RESET standard_conforming_strings;
RESET extra_float_digits;
RESET "DateStyle";
RESET quote_all_identifiers;
-- The template's four script elements and nothing else that opens one, ends one, or starts a comment.
SELECT (length(page) - length(replace(lower(page), '<script', ''))) / 7 AS script_tags,
       (length(page) - length(replace(lower(page), '</script', ''))) / 8 AS script_ends,
       strpos(page, '<!--') AS comment_at, strpos(page, '<img') AS img_at, strpos(page, chr(8232)) AS u2028_at
FROM rh_page;
-- Every text is escaped: the title, the verdict headings (column names), the profile line.
SELECT substring(page FROM '<h1>([^<]*)</h1>') AS title FROM rh_page;
SELECT h[1] AS heading FROM rh_page, regexp_matches(page, '<h2>([^<]*)</h2><div class="verdict', 'g') AS h;
-- The page names the profile and its owner.
SELECT substring(page FROM '<p class="meta" id="profile">([^<]*)</p>') AS profile FROM rh_page;
-- The data island reads back as the very values: column names, values and hierarchy labels.
CREATE TABLE rh_data AS
SELECT substring(page FROM '<script type="application/json" id="report-data">(.*?)</script>')::jsonb AS d FROM rh_page;
SELECT d->'quasi_identifiers' = to_jsonb(ARRAY[$$</script><script>document.title='col'</script>$$, '<!--<script>'])
       AS column_names_exact,
       (SELECT array_agg(DISTINCT v->>'value' ORDER BY v->>'value') FROM jsonb_array_elements(d->'distributions') AS v
         WHERE v->>'column' = $$</script><script>document.title='col'</script>$$)
       = (SELECT array_agg(DISTINCT c ORDER BY c) FROM rh AS r(i, c)) AS values_exact,
       (SELECT array_agg(DISTINCT v->>'value') FROM jsonb_array_elements(d->'distributions') AS v
         WHERE v->>'column' = '<!--<script>' AND v->>'release' = 'release') AS labels
FROM rh_data;

-- report_page takes data only: markup in the model is text on the page, and the model is checked.
SELECT substring(p FROM '<h1>([^<]*)</h1>') AS title, substring(p FROM '<h2>([^<]*)</h2>') AS heading,
       substring(p FROM '<td>([^<]*)</td>') AS measure,
       substring(p FROM '<script type="application/json" id="report-data">(.*?)</script>') AS data
FROM privrisk.report_page(
    $${"title": "<b>bold</b>", "version": "\"><script>", "meta": "&amp;", "profile_line": "'",
       "verdicts": [{"heading": "</h2><script>x()</script>", "publishable": true, "summary": "<!--",
                     "checks": [{"passed": true, "measure": "<i>", "value": "\"", "shown_value": "1", "comparison": ">=",
                                 "threshold": "1", "margin": "0", "note": ""}]}]}$$,
    $${"a": "</script><!--<script>\u2028&"}$$) AS p;
SELECT privrisk.report_page('{"title": "t"}', '{}');
SELECT privrisk.report_page($${"title": "t", "version": "v", "meta": "m", "profile_line": "p",
                              "verdicts": [{"heading": "h", "publishable": "yes", "summary": "s", "checks": []}]}$$, '{}');
SELECT privrisk.report_page(NULL, '{}');

-- 26 quasi-identifiers of height 5: 6^26 lattice nodes overflowed a bigint in 0.13. The search
-- cannot take such a lattice: the report is of the source, and says why.
CREATE TABLE rh26 AS
SELECT i AS id, lpad((i % 2)::text, 5, '0') AS c FROM generate_series(1, 60) AS i;
DO $$
BEGIN
    FOR j IN 1 .. 26 LOOP
        EXECUTE format('ALTER TABLE rh26 ADD COLUMN q%s text', j);
        EXECUTE format('UPDATE rh26 SET q%s = lpad(((id + %s) %% 2)::text, 5, ''0'')', j, j);
        EXECUTE format('SECURITY LABEL FOR privrisk ON COLUMN rh26.q%s IS ''quasi_identifier(rh26_h)''', j);
    END LOOP;
END $$;
SELECT privrisk.prefix_hierarchy('rh26_h', 5);
CREATE TABLE rh26_page AS
SELECT privrisk.report('rh26', 'rh_board') AS page;
SELECT (substring(page FROM '<script type="application/json" id="report-data">(.*?)</script>')::jsonb)->>'lattice_note'
       AS lattice_note,
       jsonb_array_length((substring(page FROM '<script type="application/json" id="report-data">(.*?)</script>')::jsonb)->'quasi_identifiers')
       AS quasi_identifiers,
       substring(page FROM 'The search did not run: [^.]*') AS search
FROM rh26_page;

DROP TABLE rh, rh_page, rh_data, rh26, rh26_page;
SELECT privrisk.drop_hierarchy('rh_h'), privrisk.drop_hierarchy('rh26_h');
SET ROLE rh_steward;
SELECT privrisk.drop_profile('rh_board');
RESET ROLE;
REVOKE EXECUTE ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean), privrisk.drop_profile(text) FROM rh_steward;
DROP ROLE rh_steward;
