CREATE OR REPLACE VIEW privrisk.policies WITH (security_invoker='true') AS
 SELECT p.name,
    p.source,
    p.created_by,
    p.created_at,
    ( SELECT count(*) AS count
           FROM privrisk.policy_rule r
          WHERE (r.policy = p.name)) AS rules,
    ( SELECT array_agg(v.view ORDER BY (v.view)::text) AS array_agg
           FROM privrisk.release_view v
          WHERE (v.policy = p.name)) AS views
   FROM privrisk.policy p;

GRANT SELECT ON TABLE privrisk.policies TO PUBLIC;


--
