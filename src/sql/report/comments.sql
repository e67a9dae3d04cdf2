COMMENT ON FUNCTION privrisk.report(regclass, text, text[], text, text[], integer[], text) IS 'a self-contained HTML report of a release against a risk profile: verdict tables, class sizes, records at risk, (c,k) curves, the risk-utility frontier of the lattice, quasi-identifiers before and after, the DP budget over time (Vega-Lite, inlined: opens offline)';
COMMENT ON FUNCTION privrisk.report_asset(text) IS 'internal: a file the report inlines (page template, chart script, plotting libraries), installed with the extension';
COMMENT ON FUNCTION privrisk.html_text(text) IS 'internal: text escaped for HTML (& < > " '' /)';
COMMENT ON FUNCTION privrisk.report_verdict(text, jsonb) IS 'internal: a verdict as an HTML heading, summary and table of checks';
