COMMENT ON TABLE privrisk.risk_profile IS 'risk profiles: named thresholds a release must meet (k, max_risk, average_risk, records_at_risk, l, t, delta, c with ck_k, dt_risk, epsilon); two shipped examples';
COMMENT ON FUNCTION privrisk.create_profile(text, jsonb, text, boolean) IS 'stores a risk profile: thresholds as search constraints (k, l, t, delta, c with ck_k, max_risk, average_risk) plus records_at_risk, dt_risk, epsilon; checked whole';
COMMENT ON FUNCTION privrisk.drop_profile(text) IS 'drops a risk profile (its owner''s members only)';
COMMENT ON FUNCTION privrisk.profile_options(text, text) IS 'internal: the audit options or search constraints a risk profile needs';
COMMENT ON FUNCTION privrisk.profile_verdict(text, jsonb, regclass) IS 'internal: each threshold of a risk profile against audit()''s report, and the verdict';
COMMENT ON FUNCTION privrisk."check"(regclass, text, text[], text, text[], integer[], jsonb) IS 'one row per threshold of a risk profile: the release''s measure, the threshold, passed or not and by how much (margin > 0: inside); arguments as audit(), from the column labels when omitted';
COMMENT ON COLUMN privrisk.risk_profile.owner IS 'the role that owns the profile (by identity: a role made again under a dropped owner''s name is not it); NULL or a dropped role: orphaned, a superuser''s to replace or drop';
COMMENT ON COLUMN privrisk.risk_profile.owner_name IS 'the owner''s name when the profile was last written: shown for an orphan, and checked when a dump is restored';
COMMENT ON FUNCTION privrisk.risk_profile_restored() IS 'internal: a restored profile keeps its owner only if that role still has the name recorded with it, else it is orphaned';
