-- Every member object of the extension carries a comment (\df+ and \dx+
-- document it): lists those without one, or with an empty one. Expected: none.
SELECT pg_catalog.pg_describe_object(d.classid, d.objid, 0) AS without_comment
  FROM pg_catalog.pg_depend d
  JOIN pg_catalog.pg_extension e ON e.oid = d.refobjid AND e.extname = 'privrisk'
 WHERE d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.deptype = 'e'
   AND COALESCE(pg_catalog.btrim(pg_catalog.obj_description(d.objid,
         (SELECT c.relname FROM pg_catalog.pg_class c WHERE c.oid = d.classid))), '') = ''
 ORDER BY 1;
-- The internal helpers say so at the start of their comment; everything else is
-- for users. Their count, to notice a helper that loses its mark:
SELECT count(*) FILTER (WHERE pg_catalog.obj_description(p.oid, 'pg_proc') LIKE 'internal:%') AS internal,
       count(*) FILTER (WHERE pg_catalog.obj_description(p.oid, 'pg_proc') NOT LIKE 'internal:%') AS user_facing
  FROM pg_catalog.pg_proc p WHERE p.pronamespace = 'privrisk'::pg_catalog.regnamespace;
