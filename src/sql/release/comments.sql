COMMENT ON FUNCTION privrisk.refresh_policy(policy text) IS 'Binds every rule condition of a policy again from its text and approves the current hierarchies; source owner only; returns the number of rules';

COMMENT ON TABLE privrisk.policy IS 'Disclosure policies: a source table and the rules that release it';

COMMENT ON TABLE privrisk.policy_rule IS 'Disclosure rules: rows where the condition is not TRUE get ⊥ (hide) or the level-`level` ancestor (gen)';

COMMENT ON COLUMN privrisk.policy_rule.condition_tree IS 'The condition as bound by add_rule or refresh_policy (an analyzed expression tree); what a release runs';

COMMENT ON COLUMN privrisk.policy_rule.condition_columns IS 'The source columns the bound condition reads, by ascending column number (detects moved columns)';

COMMENT ON COLUMN privrisk.policy_rule.hierarchy_version IS 'gen rules: the version of the hierarchy the policy''s owner approved; a release refuses another version';

COMMENT ON TABLE privrisk.release_view IS 'Views made by create_release_view; SELECT on one lets a role read its policy''s release';
