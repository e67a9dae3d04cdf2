-- A catalog sequence's position for check_catalog(), or NULLs for a role that
-- may not read the sequence: the privilege is checked before it is read (a
-- sequence in a query's FROM is checked, and refused, whatever its WHERE says).
CREATE OR REPLACE FUNCTION privrisk.catalog_sequence_state(seq regclass, OUT last_value bigint, OUT is_called boolean)
    LANGUAGE plpgsql STABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF pg_catalog.has_sequence_privilege(seq, 'SELECT') THEN
        EXECUTE pg_catalog.format('SELECT s.last_value, s.is_called FROM %s s', seq) INTO last_value, is_called;
    END IF;
END $$;

CREATE OR REPLACE FUNCTION privrisk.check_catalog() RETURNS TABLE(invariant text, object text, problem text)
    LANGUAGE sql STABLE PARALLEL SAFE
    SET search_path TO 'pg_catalog', 'pg_temp'
    BEGIN ATOMIC
 -- Tree hierarchies: one path per leaf, as long as the height, no gaps, leaves once, one parent per node.
 SELECT 'hierarchy well-formed'::text, h.name, format('line %s: path of %s labels, height %s', l.line, cardinality(l.path), h.height)
   FROM privrisk.hierarchy h JOIN privrisk.hierarchy_leaf l ON l.hierarchy = h.name
  WHERE h.kind = 'tree' AND (cardinality(l.path) <> h.height OR array_position(l.path, NULL) IS NOT NULL)
 UNION ALL
 SELECT 'hierarchy well-formed', h.name, 'a tree hierarchy without leaves'
   FROM privrisk.hierarchy h
  WHERE h.kind = 'tree' AND NOT EXISTS (SELECT 1 FROM privrisk.hierarchy_leaf l WHERE l.hierarchy = h.name)
 UNION ALL
 SELECT 'hierarchy well-formed', l.hierarchy, format('leaf %L is on %s lines', l.path[1], count(*))
   FROM privrisk.hierarchy_leaf l GROUP BY l.hierarchy, l.path[1] HAVING count(*) > 1
 UNION ALL
 SELECT 'hierarchy well-formed', n.hierarchy, format('node %L (level %s) has %s parents', n.node, n.level, count(DISTINCT n.parent))
   FROM (SELECT l.hierarchy, l.path[i] AS node, i - 1 AS level, l.path[i + 1] AS parent
           FROM privrisk.hierarchy_leaf l, generate_subscripts(l.path, 1) AS i
          WHERE i < cardinality(l.path)) AS n
  GROUP BY n.hierarchy, n.node, n.level HAVING count(DISTINCT n.parent) > 1
 UNION ALL
 SELECT 'hierarchy well-formed', h.name, format('interval hierarchy [%s, %s) is empty', h.lo, h.hi)
   FROM privrisk.hierarchy h WHERE h.kind = 'interval' AND NOT (h.lo < h.hi)
 UNION ALL
 -- Policies: a source that exists, rules on its columns, gen rules through existing hierarchies.
 SELECT 'policy source exists', p.name, format('source %s is gone', p.source::oid)
   FROM privrisk.policy p WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = p.source::oid)
 UNION ALL
 SELECT 'rule column exists', r.policy,
        format('rule %s: column %I (number %s) is not a column of %s by that name', r.rule, r.column_name, r.column_number, p.source)
   FROM privrisk.policy_rule r JOIN privrisk.policy p ON p.name = r.policy
  WHERE EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = p.source::oid)
    AND NOT EXISTS (SELECT 1 FROM pg_attribute a WHERE a.attrelid = p.source::oid AND a.attnum = r.column_number
                                                  AND a.attname = r.column_name AND a.attnum > 0 AND NOT a.attisdropped)
 UNION ALL
 SELECT 'rule hierarchy exists', r.policy, format('rule %s: hierarchy %L does not exist', r.rule, r.hierarchy)
   FROM privrisk.policy_rule r
  WHERE r.operator = 'gen' AND NOT EXISTS (SELECT 1 FROM privrisk.hierarchy h WHERE h.name = r.hierarchy)
 UNION ALL
 SELECT 'rule bound', r.policy, format('rule %s has no bound condition (refresh_policy binds it)', r.rule)
   FROM privrisk.policy_rule r WHERE r.condition_tree IS NULL
 UNION ALL
 SELECT 'release view exists', v.policy, format('view %s is gone', v.view::oid)
   FROM privrisk.release_view v WHERE NOT EXISTS (SELECT 1 FROM pg_class c WHERE c.oid = v.view::oid)
 UNION ALL
 -- Budgets: what a budget says was spent is what its ledger holds (sums in ledger order, as spent).
 SELECT 'budget = ledger', b.relation::text,
        format('spent (%s, %s), ledger (%s, %s)', b.spent_epsilon, b.spent_delta, coalesce(s.epsilon, 0), coalesce(s.delta, 0))
   FROM privrisk.budget b
   LEFT JOIN (SELECT l.relation, sum(l.epsilon ORDER BY l.id) AS epsilon, sum(l.delta ORDER BY l.id) AS delta
                FROM privrisk.budget_ledger l GROUP BY l.relation) AS s ON s.relation = b.relation
  WHERE abs(b.spent_epsilon - coalesce(s.epsilon, 0)) > 1e-9 * greatest(1, b.epsilon)
     OR abs(b.spent_delta - coalesce(s.delta, 0)) > 1e-12 + 1e-9 * b.delta
 UNION ALL
 SELECT 'ledger has a budget', l.relation::text, format('%s spends without a budget row', count(*))
   FROM privrisk.budget_ledger l
  WHERE NOT EXISTS (SELECT 1 FROM privrisk.budget b WHERE b.relation = l.relation) GROUP BY l.relation
 UNION ALL
 -- Sequences: each past every id its table holds (a restore or a crash must not reuse one): no id
 -- at or past the value nextval gives next. The sequences are the catalog owner's, and their values
 -- count every role's rows: only a role that may read a sequence checks it, against the ids it may read.
 SELECT 'sequence past ids', s.seq, format('last value %s%s, largest id %s', q.last_value,
                                           CASE WHEN NOT q.is_called THEN ' (not yet given)' ELSE '' END, s.largest)
   FROM (VALUES ('privrisk.audit_log_id_seq', (SELECT max(a.id) FROM privrisk.audit_log a)),
                ('privrisk.budget_ledger_id_seq', (SELECT max(l.id) FROM privrisk.budget_ledger l))) AS s(seq, largest),
        LATERAL privrisk.catalog_sequence_state(s.seq::regclass) AS q
  WHERE s.largest > q.last_value OR (s.largest = q.last_value AND NOT q.is_called);
END;
