-- One row per member object of the extension privrisk, with everything that
-- defines it, plus the extension's dump registrations: two installs are the
-- same extension when these rows are equal (a NULL ACL is written as the
-- default it stands for). Used by the upgrade tests.
WITH ext AS (SELECT oid, extconfig, extcondition FROM pg_catalog.pg_extension WHERE extname = 'privrisk'),
members AS (
    SELECT d.classid, d.objid, d.objsubid FROM pg_catalog.pg_depend d, ext
     WHERE d.refclassid = 'pg_catalog.pg_extension'::pg_catalog.regclass AND d.refobjid = ext.oid AND d.deptype = 'e'),
described AS (
    SELECT pg_catalog.pg_describe_object(m.classid, m.objid, m.objsubid) AS object,
           pg_catalog.concat_ws(E'\n',
             -- functions and procedures: the whole CREATE statement (volatility,
             -- parallel label, SET, SECURITY, body); aggregates: their definition
             CASE WHEN m.classid = 'pg_catalog.pg_proc'::pg_catalog.regclass THEN (
               SELECT CASE WHEN p.prokind = 'a' THEN
                        pg_catalog.format('AGGREGATE %s(%s) RETURNS %s kind %s direct %s sfunc %s stype %s final %s modify %s combine %s serial %s deserial %s init %s msfunc %s minv %s mfinal %s sort %s parallel %s',
                          p.oid::pg_catalog.regproc, pg_catalog.pg_get_function_arguments(p.oid), p.prorettype::pg_catalog.regtype,
                          a.aggkind, a.aggnumdirectargs, a.aggtransfn, a.aggtranstype::pg_catalog.regtype, a.aggfinalfn,
                          a.aggfinalmodify, a.aggcombinefn, a.aggserialfn, a.aggdeserialfn, a.agginitval, a.aggmtransfn,
                          a.aggminvtransfn, a.aggmfinalfn, a.aggsortop, p.proparallel)
                      ELSE pg_catalog.pg_get_functiondef(p.oid) END
                      || pg_catalog.format(E'\nacl %s', COALESCE(p.proacl, pg_catalog.acldefault('f', p.proowner)))
                 FROM pg_catalog.pg_proc p LEFT JOIN pg_catalog.pg_aggregate a ON a.aggfnoid = p.oid
                WHERE p.oid = m.objid) END,
             -- tables, views, sequences: columns, constraints, indexes, triggers,
             -- row security, view text, sequence parameters, privileges
             CASE WHEN m.classid = 'pg_catalog.pg_class'::pg_catalog.regclass THEN (
               SELECT pg_catalog.concat_ws(E'\n',
                        pg_catalog.format('kind %s rls %s options %s', c.relkind, c.relrowsecurity, c.reloptions),
                        pg_catalog.format('acl %s', COALESCE(c.relacl, pg_catalog.acldefault((CASE c.relkind WHEN 'S' THEN 's' ELSE 'r' END)::pg_catalog."char", c.relowner))),
                        (SELECT pg_catalog.string_agg(pg_catalog.format('column %s %s null %s default %s identity %s',
                                   at.attname, pg_catalog.format_type(at.atttypid, at.atttypmod), NOT at.attnotnull,
                                   pg_catalog.pg_get_expr(ad.adbin, ad.adrelid), at.attidentity), E'\n' ORDER BY at.attnum)
                           FROM pg_catalog.pg_attribute at LEFT JOIN pg_catalog.pg_attrdef ad ON ad.adrelid = at.attrelid AND ad.adnum = at.attnum
                          WHERE at.attrelid = c.oid AND at.attnum > 0 AND NOT at.attisdropped),
                        (SELECT pg_catalog.string_agg('constraint ' || co.conname || ' ' || pg_catalog.pg_get_constraintdef(co.oid), E'\n' ORDER BY co.conname)
                           FROM pg_catalog.pg_constraint co WHERE co.conrelid = c.oid),
                        (SELECT pg_catalog.string_agg(pg_catalog.pg_get_indexdef(i.indexrelid), E'\n' ORDER BY 1)
                           FROM pg_catalog.pg_index i WHERE i.indrelid = c.oid),
                        (SELECT pg_catalog.string_agg(pg_catalog.pg_get_triggerdef(t.oid), E'\n' ORDER BY t.tgname)
                           FROM pg_catalog.pg_trigger t WHERE t.tgrelid = c.oid AND NOT t.tgisinternal),
                        (SELECT pg_catalog.string_agg(pg_catalog.format('policy %s %s %s roles %s using %s check %s', po.polname, po.polcmd, po.polpermissive,
                                   po.polroles::text, pg_catalog.pg_get_expr(po.polqual, po.polrelid), pg_catalog.pg_get_expr(po.polwithcheck, po.polrelid)),
                                   E'\n' ORDER BY po.polname)
                           FROM pg_catalog.pg_policy po WHERE po.polrelid = c.oid),
                        CASE WHEN c.relkind = 'v' THEN pg_catalog.pg_get_viewdef(c.oid) END,
                        (SELECT pg_catalog.format('sequence %s start %s inc %s min %s max %s cache %s cycle %s', s.seqtypid::pg_catalog.regtype,
                                   s.seqstart, s.seqincrement, s.seqmin, s.seqmax, s.seqcache, s.seqcycle)
                           FROM pg_catalog.pg_sequence s WHERE s.seqrelid = c.oid),
                        (SELECT pg_catalog.string_agg(pg_catalog.format('comment on column %s: %s', at.attname, pg_catalog.col_description(c.oid, at.attnum)),
                                   E'\n' ORDER BY at.attnum)
                           FROM pg_catalog.pg_attribute at WHERE at.attrelid = c.oid AND at.attnum > 0 AND NOT at.attisdropped
                            AND pg_catalog.col_description(c.oid, at.attnum) IS NOT NULL),
                        pg_catalog.format('dumped %s', (SELECT c.oid OPERATOR(pg_catalog.=) ANY (ext.extconfig) FROM ext)))
                 FROM pg_catalog.pg_class c WHERE c.oid = m.objid) END,
             CASE WHEN m.classid = 'pg_catalog.pg_type'::pg_catalog.regclass THEN (
               SELECT pg_catalog.format('type len %s byval %s type %s category %s in %s out %s recv %s send %s align %s storage %s acl %s',
                        t.typlen, t.typbyval, t.typtype, t.typcategory, t.typinput, t.typoutput, t.typreceive, t.typsend,
                        t.typalign, t.typstorage, COALESCE(t.typacl, pg_catalog.acldefault('T', t.typowner)))
                 FROM pg_catalog.pg_type t WHERE t.oid = m.objid) END,
             CASE WHEN m.classid = 'pg_catalog.pg_event_trigger'::pg_catalog.regclass THEN (
               SELECT pg_catalog.format('event trigger on %s calls %s tags %s enabled %s', e.evtevent, e.evtfoid::pg_catalog.regproc, e.evttags, e.evtenabled)
                 FROM pg_catalog.pg_event_trigger e WHERE e.oid = m.objid) END,
             pg_catalog.format('comment %s', pg_catalog.obj_description(m.objid, (SELECT cl.relname FROM pg_catalog.pg_class cl WHERE cl.oid OPERATOR(pg_catalog.=) m.classid)))
           ) AS definition
      FROM members m)
SELECT object, definition FROM described
UNION ALL
SELECT 'registered for pg_dump', pg_catalog.string_agg(c::pg_catalog.regclass::text || ' ' || COALESCE(cond, ''), ', ' ORDER BY c::pg_catalog.regclass::text)
  FROM ext, LATERAL ROWS FROM (pg_catalog.unnest(ext.extconfig), pg_catalog.unnest(ext.extcondition)) AS u(c, cond)
ORDER BY 1, 2;
