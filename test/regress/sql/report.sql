-- The report (docs/report.md): one self-contained page; test/report/run_report.py renders it.
CREATE TABLE rep AS
SELECT i AS id, 20 + (i * 7) % 60 AS age, '479' || lpad((i % 37)::text, 2, '0') AS zip,
       (ARRAY['flu', 'cold', 'asthma', 'diabetes', 'cancer'])[1 + (i * 13) % 5] AS diagnosis
FROM generate_series(1, 1000) AS i;
SELECT privrisk.interval_hierarchy('rep_age', 0, 120, ARRAY[5, 10, 20]), privrisk.prefix_hierarchy('rep_zip', 5);
SECURITY LABEL FOR privrisk ON COLUMN rep.age IS 'quasi_identifier(rep_age)';
SECURITY LABEL FOR privrisk ON COLUMN rep.zip IS 'quasi_identifier(rep_zip)';
SECURITY LABEL FOR privrisk ON COLUMN rep.diagnosis IS 'sensitive';
CREATE TABLE rep_page AS SELECT privrisk.report('rep', 'public_use_file', title => 'Clinic <2026> & "co"/*@DATA@*/') AS page;
-- Every placeholder filled, the libraries inlined, nothing fetched.
SELECT page LIKE '<!DOCTYPE html>%' AS html, page NOT LIKE '%/*@%@*/%' AS filled, length(page) > 700000 AS libraries_inlined,
       page !~* '<(script|link|img)[^>]+(src|href)=' AS nothing_fetched
FROM rep_page;
-- The title is escaped (and cannot name a placeholder).
SELECT substring(page FROM '<h1>([^<]*)</h1>') AS title FROM rep_page;
-- The data is JSON: the search's node under the profile, one class-size entry per distinct size.
CREATE TABLE rep_data AS
SELECT substring(page FROM '<script type="application/json" id="report-data">(.*?)</script>')::jsonb AS d
FROM rep_page;
SELECT d->'levels' AS levels, d->'quasi_identifiers' AS quasi_identifiers, d->>'sensitive' AS sensitive,
       jsonb_array_length(d->'class_sizes') = (SELECT count(DISTINCT privrisk.hist_size(hist))
                                               FROM privrisk.classes('rep', levels => ARRAY[1, 1])) AS class_sizes,
       jsonb_array_length(d->'lattice') = (SELECT count(*) FROM privrisk.lattice('rep')) AS lattice_nodes,
       jsonb_array_length(d->'ck') AS ck_points, d->'budget' AS budget
FROM rep_data;
-- records at risk: at θ = 1/s, the share of rows in classes smaller than s (a plain count).
SELECT bool_and((p->>'share')::float8 = (SELECT coalesce(sum(privrisk.hist_size(hist)), 0)::float8 / 1000
                                         FROM privrisk.classes('rep', levels => ARRAY[1, 1])
                                         WHERE privrisk.hist_size(hist) < round(1 / (p->>'threshold')::float8)))
       AS shares_are_counts
FROM rep_data, jsonb_array_elements(d->'records_at_risk') AS p;
-- Bad input.
SELECT privrisk.report('rep', 'no_such_profile');
DROP TABLE rep, rep_page, rep_data;
SELECT privrisk.drop_hierarchy('rep_age'), privrisk.drop_hierarchy('rep_zip');
