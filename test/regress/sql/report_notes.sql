-- What the report says when the search finds nothing and when records are suppressed (docs/report.md):
-- the search's and the audit's jsonb are read defensively, whatever another part of privrisk adds.
-- Nothing found: the summary and a row per constraint at the top node, as report_checks shows them.
SELECT v->>'summary' AS summary, c->>'measure' AS measure, c->>'value' AS value, c->>'threshold' AS threshold,
       c->>'passed' AS passed, c->>'note' AS note
FROM privrisk.report_checks('No release qualifies', privrisk.report_nothing_found(
         '{"found": false, "nothing_found": {"summary": "ck_max_disclosure fails even at the top node",
           "at_top": [{"constraint": "k", "value": 600, "threshold": 10, "passed": true},
                      {"constraint": "ck_max_disclosure", "value": 1, "threshold": 0.5, "passed": false}]}}')) AS v,
     jsonb_array_elements(v->'checks') AS c;
-- Without "nothing_found" (or with members of the wrong type), it says only that nothing qualifies.
SELECT privrisk.report_nothing_found('{"found": false}')->>'summary' AS bare,
       privrisk.report_nothing_found('{"found": false, "nothing_found": {"summary": 7, "at_top": "x"}}') AS wrong_types,
       jsonb_array_length(privrisk.report_nothing_found(
           '{"found": false, "nothing_found": {"at_top": [1, "k", {"constraint": 5, "value": "1", "passed": "yes"}]}}')->'checks')
           AS rows_from_objects_only,
       privrisk.report_checks('h', privrisk.report_nothing_found(
           '{"found": false, "nothing_found": {"at_top": [{"constraint": 5, "value": "1", "passed": "yes"}]}}'))->'checks'
           AS cells;
-- Found: no table.
SELECT privrisk.report_nothing_found('{"found": true, "result": {"node": [1]}}') IS NULL AS found,
       privrisk.report_nothing_found(NULL) IS NULL AS no_search;
-- Suppression: the search's node that suppresses rows, a release whose audit counts them, neither.
SELECT unnest(privrisk.report_suppression(ARRAY['age', 'zip'],
           '{"found": true, "result": {"node": [2, 1], "rows_suppressed": 37}}',
           '{"rows": 600, "rows_suppressed": 12}')) AS note;
SELECT privrisk.report_suppression(ARRAY['age'], '{"found": true, "result": {"node": [2], "rows_suppressed": 0}}',
                                   '{"rows": 600, "rows_suppressed": 0}') AS none,
       privrisk.report_suppression(ARRAY['age'], NULL, '{"rows": 600}') AS no_key,
       privrisk.report_suppression(ARRAY['age'], '{"found": true, "result": {"rows_suppressed": "37"}}',
                                   '{"rows_suppressed": "12"}') AS wrong_types;
