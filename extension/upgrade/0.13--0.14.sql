-- 0.13 -> 0.14: what a 0.13 database needs beyond replaying the current
-- definitions (the Makefile appends every replayable fragment of src/sql and
-- the comments after this file).

-- report and risk profiles:
-- The page is written by report_page() from data; the SQL helpers that escaped HTML at each call site go.
DROP FUNCTION privrisk.report_verdict(text, jsonb);
DROP FUNCTION privrisk.html_text(text);
DROP FUNCTION privrisk.report_asset(text);
