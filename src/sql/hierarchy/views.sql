CREATE OR REPLACE VIEW privrisk.hierarchies AS
 SELECT h.name,
    h.kind,
    h.height,
    h.created_by,
    h.created_at,
        CASE h.kind
            WHEN 'tree'::text THEN ( SELECT count(*) AS count
               FROM privrisk.hierarchy_leaf l
              WHERE (l.hierarchy = h.name))
            ELSE NULL::bigint
        END AS leaves,
    h.owner,
    h.version
   FROM privrisk.hierarchy h;

GRANT SELECT ON TABLE privrisk.hierarchies TO PUBLIC;
