ALTER TABLE privrisk.policy ENABLE ROW LEVEL SECURITY;

ALTER TABLE privrisk.policy_rule ENABLE ROW LEVEL SECURITY;

ALTER TABLE privrisk.release_view ENABLE ROW LEVEL SECURITY;

ALTER TABLE privrisk.policy_column ENABLE ROW LEVEL SECURITY;

CREATE POLICY source_owner ON privrisk.policy FOR SELECT USING (privrisk.owns_source(source));

CREATE POLICY source_owner ON privrisk.policy_rule FOR SELECT USING (privrisk.owns_source(( SELECT p.source
   FROM privrisk.policy p
  WHERE (p.name = policy_rule.policy))));

CREATE POLICY source_owner ON privrisk.release_view FOR SELECT USING (privrisk.owns_source(( SELECT p.source
   FROM privrisk.policy p
  WHERE (p.name = release_view.policy))));

CREATE POLICY source_owner ON privrisk.policy_column FOR SELECT USING (privrisk.owns_source(( SELECT p.source
   FROM privrisk.policy p
  WHERE (p.name = policy_column.policy))));

CREATE EVENT TRIGGER privrisk_forget_dropped_relations ON sql_drop
    EXECUTE FUNCTION privrisk.forget_dropped_relations();

ALTER TABLE privrisk.policy_suppression ENABLE ROW LEVEL SECURITY;

CREATE POLICY source_owner ON privrisk.policy_suppression FOR SELECT USING (privrisk.owns_source(( SELECT p.source
   FROM privrisk.policy p
  WHERE (p.name = policy_suppression.policy))));
