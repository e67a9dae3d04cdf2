ALTER TABLE privrisk.pseudonym_key ENABLE ROW LEVEL SECURITY;

CREATE POLICY source_owner ON privrisk.pseudonym_key FOR SELECT USING (privrisk.owns_source(( SELECT p.source
   FROM privrisk.policy p
  WHERE (p.name = pseudonym_key.policy))));
