COMMENT ON FUNCTION privrisk.refresh_policy(policy text) IS 'Approves the source''s columns as they are (a rule follows a renamed column by number), binds again the conditions whose columns moved or changed type, and approves the current hierarchies; source owner only; returns the number of rules';

COMMENT ON TABLE privrisk.policy IS 'Disclosure policies: a source table and the rules that release it';

COMMENT ON TABLE privrisk.policy_rule IS 'Disclosure rules: rows where the condition is not TRUE get ⊥ (hide), the level-`level` ancestor (gen) or a pseudonym (pseudonymize)';

COMMENT ON COLUMN privrisk.policy_rule.condition_tree IS 'The condition as bound by add_rule or refresh_policy (an analyzed expression tree); what a release runs';

COMMENT ON COLUMN privrisk.policy_rule.condition_columns IS 'The source columns the bound condition reads, by ascending column number (detects moved columns)';

COMMENT ON COLUMN privrisk.policy_rule.hierarchy_version IS 'gen rules: the version of the hierarchy the policy''s owner approved; a release refuses another version';

COMMENT ON TABLE privrisk.release_view IS 'Views made by create_release_view, with the source columns each releases by number; SELECT on one lets a role read its policy''s release through it, and only through it';

COMMENT ON TABLE privrisk.policy_column IS 'The columns of each policy''s source as its owner last approved them; a release stops when a guarded one (named by a rule or a label) was renamed, retyped or dropped since';

COMMENT ON COLUMN privrisk.policy.name IS 'The policy''s key: schema.name, the schema its source had when the policy was made (policies are named per schema)';

COMMENT ON COLUMN privrisk.policy.base_name IS 'The policy''s name as create_policy was given it; release(name) finds it when it names one policy the caller may use';

COMMENT ON COLUMN privrisk.policy_rule.column_number IS 'The rule''s column, by number: a rename keeps it, a new column of the same name is another column';
COMMENT ON EVENT TRIGGER privrisk_forget_dropped_relations IS 'removes the policies of a dropped source and the registration of a dropped release view';
COMMENT ON VIEW privrisk.policies IS 'the policies on sources the reader owns: name, source, creator, time, rules and release views';

COMMENT ON FUNCTION privrisk.create_release_view(text,text,text,boolean) IS 'creates a view of every column of a policy''s release, owned by the caller; returns the view. With a risk profile, refuses a release that fails it (nothing is created) unless override => true, which privrisk.audit_log records';
COMMENT ON FUNCTION privrisk.add_rule(text,text,text,text,text,integer) IS 'adds a disclosure rule to a policy: rows where the condition is true keep the column''s value, the others get NULL (hide), the ancestor at the level (gen) or its pseudonym (pseudonymize); returns the rule number';
COMMENT ON FUNCTION privrisk.create_policy(text,regclass,text) IS 'creates a named disclosure policy on a table, partitioned table or materialized view the caller owns; hides the columns labelled identifier (and with unlabelled => ''hide'' every unlabelled one) in every row';
COMMENT ON FUNCTION privrisk.drop_policy(text, boolean) IS 'drops a policy and its rules; a policy with release views only with cascade => true, which drops the views too';
COMMENT ON FUNCTION privrisk.canonical_text(anyelement) IS 'the text gen() looks a value up by in a hierarchy and audit(), search() and hist() count a sensitive value by: text as it is, char(n) without pad blanks, dates in ISO form whatever DateStyle says, anything else by its output function';
COMMENT ON FUNCTION privrisk.canonical_text(text) IS 'the text gen() looks a value up by in a hierarchy and audit(), search() and hist() count a sensitive value by: here the text itself';
COMMENT ON FUNCTION privrisk.gen(anyelement,text,integer) IS 'gen operator: the value as text if disclose is true, else its ancestor at the level of the hierarchy';
COMMENT ON FUNCTION privrisk.gen(text,text,integer) IS 'gen operator: the value as text if disclose is true, else its ancestor at the level of the hierarchy';
COMMENT ON FUNCTION privrisk.gen(anyelement,text,integer,boolean) IS 'gen operator: the value as text if disclose is true, else its ancestor at the level of the hierarchy';
COMMENT ON FUNCTION privrisk.gen(text,text,integer,boolean) IS 'gen operator: the value as text if disclose is true, else its ancestor at the level of the hierarchy';
COMMENT ON FUNCTION privrisk.gen(anyelement,privrisk.pinned_hierarchy,integer) IS 'gen operator through a pinned hierarchy: IMMUTABLE (shippable to shards, usable in partition keys); an error where the hierarchy differs from the pinned digest';
COMMENT ON FUNCTION privrisk.gen(text,privrisk.pinned_hierarchy,integer) IS 'gen operator through a pinned hierarchy: IMMUTABLE (shippable to shards, usable in partition keys); an error where the hierarchy differs from the pinned digest';
COMMENT ON FUNCTION privrisk.hide(anyelement,boolean) IS 'hide operator: the value if disclose is true, else NULL (suppressed); keeps the type';
COMMENT ON FUNCTION privrisk.owns_source(regclass) IS 'internal: whether the caller owns (is a member of the owner of) a relation; row security of the policy catalog';
COMMENT ON FUNCTION privrisk.gen_support(internal) IS 'internal: planner support function of gen(): loads privrisk while a query naming gen() is planned, so its planner hook for a GROUP BY over shards is in place';
COMMENT ON FUNCTION privrisk.release_support(internal) IS 'internal: planner support function of release() (row estimate)';
COMMENT ON FUNCTION privrisk.release(text) IS 'release operator: the rows of a policy''s source with its rules applied (hide, gen and pseudonymize), read by a custom scan; use with a column definition list';
COMMENT ON FUNCTION privrisk.forget_dropped_relations() IS 'internal: event trigger function removing the policies and release views of dropped relations';
COMMENT ON TYPE privrisk.pinned_policy IS 'a policy pinned by the digest of its definition, for a shard: name@digest@server (docs/scale-out.md)';
COMMENT ON FUNCTION privrisk.release_is_pinned(anyelement, privrisk.pinned_policy) IS 'true, or an error naming the policy and the server when the policy here is not the one pinned; a release view over shards sends it to each shard (docs/scale-out.md)';
COMMENT ON FUNCTION privrisk.pinned_policy_in(cstring) IS 'internal: I/O function of type privrisk.pinned_policy';
COMMENT ON FUNCTION privrisk.pinned_policy_out(privrisk.pinned_policy) IS 'internal: I/O function of type privrisk.pinned_policy';
COMMENT ON FUNCTION privrisk.pinned_policy_recv(internal) IS 'internal: I/O function of type privrisk.pinned_policy';
COMMENT ON FUNCTION privrisk.pinned_policy_send(privrisk.pinned_policy) IS 'internal: I/O function of type privrisk.pinned_policy';
COMMENT ON FUNCTION privrisk.release_policy_is(text, text) IS 'true, or an error when the policy was dropped or changed since its release view over shards pinned it (docs/scale-out.md)';
COMMENT ON TABLE privrisk.policy_suppression IS 'each policy''s record suppression rule: the quasi-identifiers whose released values form the classes, the sensitive column, and the per-class constraints with max_suppression (docs/release.md, "Record suppression")';
COMMENT ON FUNCTION privrisk.set_suppression(text,text[],jsonb,text) IS 'sets the policy''s record suppression rule (its owner only): every read withholds the rows of the classes of the quasi-identifiers'' released values that violate the per-class constraints (k, max_risk, l, t, delta), decided from the whole source; NULL constraints remove the rule';
COMMENT ON FUNCTION privrisk.policy_source(text) IS 'internal: the source of a policy the caller owns, or NULL (apply_generalization adds to it or creates it)';
COMMENT ON FUNCTION privrisk.release_suppression(regclass) IS 'the record suppression of a release view as a read of it decides it now (rows, rows_released, rows_suppressed, max_suppression, within), read as the caller; NULL when its policy suppresses nothing';
COMMENT ON FUNCTION privrisk.with_suppression(jsonb,regclass) IS 'internal: audit()''s result for a release view whose policy suppresses records: with rows_suppressed, and its verdict failing past max_suppression';
COMMENT ON FUNCTION privrisk.release_catalog_changed() IS 'internal: trigger function that makes every backend forget what it cached from the release''s catalog tables';
