-- Scalar hide/gen (docs/release.md; [LSFB09], the paper's §7.1 example).
SELECT privrisk.load_hierarchy('a2', E'a1;A-low;*\na2;A-low;*\na3;A-high;*\na4;A-high;*');

CREATE TABLE t (a1 int PRIMARY KEY, a2 text, a3 text);
INSERT INTO t VALUES (1, 'a1', 'b1'), (2, 'a2', 'b2'), (3, 'a3', 'b3'), (4, 'a4', 'b4');

-- hide_T(A2, F' ∧ F''), F' = (A1 ≠ 1), F'' = (A1 ≠ 3): tuples 1 and 3 lose A2.
SELECT a1, privrisk.hide(a2, a1 <> 1 AND a1 <> 3) AS a2, a3 FROM t ORDER BY a1;
-- gen_T(A2, F' ∧ F''): tuples 1 and 3 get the generalized value, 2 and 4 keep theirs.
SELECT a1, privrisk.gen(a2, 'a2', 1, a1 <> 1 AND a1 <> 3) AS a2, a3 FROM t ORDER BY a1;
-- gen to the top level is hide (suppression is the special case G = ⊥).
SELECT bool_and(privrisk.gen(a2, 'a2', 2, a1 <> 1 AND a1 <> 3) IS NOT DISTINCT FROM
                privrisk.hide(a2, a1 <> 1 AND a1 <> 3)) AS gen_top_is_hide FROM t;

-- Proposition 3 with conditions on the original row: the order of two hides on one
-- attribute does not matter, and two hides are one hide under the conjunction.
SELECT a1, privrisk.hide(privrisk.hide(a2, a1 <> 1), a1 <> 3) AS hide_then_hide,
       privrisk.hide(privrisk.hide(a2, a1 <> 3), a1 <> 1) AS other_order,
       privrisk.hide(a2, a1 <> 1 AND a1 <> 3) AS conjunction
FROM t ORDER BY a1;
-- Rules on two attributes commute: {(1,⊥,b1),(2,a2,b2),(3,a3,b3),(4,a4,⊥)}.
SELECT a1, privrisk.hide(a2, a1 <> 1) AS a2, privrisk.hide(a3, a1 <> 4) AS a3 FROM t ORDER BY a1;

-- An unknown condition protects: only TRUE discloses.
SELECT privrisk.hide('secret'::text, NULL) AS hide_null, privrisk.hide('secret'::text, false) AS hide_false,
       privrisk.hide('secret'::text, true) AS hide_true,
       privrisk.gen('a1', 'a2', 1, NULL) AS gen_null, privrisk.gen('a1', 'a2', 1, true) AS gen_true;
-- ⊥ in, ⊥ out; hide keeps the type of its argument.
SELECT privrisk.hide(NULL::int, true) IS NULL AS hide_bottom, privrisk.gen(NULL::text, 'a2', 1) IS NULL AS gen_bottom,
       pg_typeof(privrisk.hide(42, true)) AS hide_type, pg_typeof(privrisk.hide(now()::date, true)) AS hide_date_type,
       pg_typeof(privrisk.gen('a1'::varchar, 'a2', 1, true)) AS gen_type;
-- gen checks the value and level on every row, disclosed or not.
SELECT privrisk.gen('zz', 'a2', 1, true);
SELECT privrisk.gen('a1', 'a2', 7, true);

-- Randomized: hide composition = conjunction, and commutes, over 2,000 random rows
-- with random (possibly NULL) conditions.
SELECT setseed(0.25);
CREATE TABLE r AS
SELECT i, (random() * 100)::int AS v,
       CASE WHEN random() < 0.1 THEN NULL ELSE random() < 0.5 END AS f1,
       CASE WHEN random() < 0.1 THEN NULL ELSE random() < 0.5 END AS f2
FROM generate_series(1, 2000) AS i;
SELECT count(*) AS rows,
       count(*) FILTER (WHERE privrisk.hide(privrisk.hide(v, f1), f2) IS DISTINCT FROM privrisk.hide(v, f1 AND f2)) AS assoc_violations,
       count(*) FILTER (WHERE privrisk.hide(privrisk.hide(v, f1), f2) IS DISTINCT FROM privrisk.hide(privrisk.hide(v, f2), f1)) AS comm_violations,
       count(*) FILTER (WHERE privrisk.hide(v, f1) IS NOT NULL) = count(*) FILTER (WHERE f1) AS disclosed_iff_true
FROM r;

DROP TABLE t, r;
SELECT privrisk.drop_hierarchy('a2');
