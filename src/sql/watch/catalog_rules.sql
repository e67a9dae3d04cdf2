ALTER TABLE privrisk.watched_view ENABLE ROW LEVEL SECURITY;

CREATE POLICY source_owner ON privrisk.watched_view FOR SELECT USING (privrisk.owns_source(( SELECT p.source
   FROM (privrisk.release_view v
     JOIN privrisk.policy p ON ((p.name = v.policy)))
  WHERE (v.view = watched_view.view))));
