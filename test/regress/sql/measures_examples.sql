-- Risk and privacy measures on the worked examples of [BS08], as SQL
-- aggregates over one hist per class and through audit(); natural logs.

-- §4.1: the section 7 XOR table. Q = (a1, a2), S = a3 = (r2, r3).
CREATE TABLE s7 AS
SELECT r1 AS a1, r2 AS a2, r2::text || r3::text AS a3, (r1 # r3) AS a4, (r1 # r2) AS a5
FROM generate_series(0, 1) r1, generate_series(0, 1) r2, generate_series(0, 1) r3;

CREATE VIEW s7_intact AS SELECT privrisk.hist(a3) AS h FROM s7 GROUP BY a1, a2;
SELECT privrisk.k_anonymity(h), privrisk.l_diversity(h, 'recursive', 3) AS l_recursive,
       privrisk.t_closeness(h), privrisk.delta_disclosure(h),
       privrisk.a_know(h), privrisk.a_acc(h), round(privrisk.information_gain(h)::numeric, 12) AS gain,
       round(ln(2)::numeric, 12) AS ln2
FROM s7_intact;
-- a2 suppressed: two classes of 4; Q fully suppressed: one class of 8.
SELECT privrisk.k_anonymity(h), privrisk.l_diversity(h, 'recursive', 3) AS l_recursive, privrisk.t_closeness(h),
       privrisk.delta_disclosure(h), privrisk.a_know(h), privrisk.a_acc(h), privrisk.information_gain(h)
FROM (SELECT privrisk.hist(a3) AS h FROM s7 GROUP BY a1, privrisk.hide(a2, false)) AS c;
SELECT privrisk.k_anonymity(h), privrisk.l_diversity(h, 'recursive', 3) AS l_recursive, privrisk.a_know(h),
       privrisk.a_acc(h), privrisk.information_gain(h)
FROM (SELECT privrisk.hist(a3) AS h FROM s7) AS c;
-- The same through audit(), in one scan.
SELECT jsonb_pretty(privrisk.audit('s7', ARRAY['a1', 'a2'], 'a3'));

-- §4.2: the rare-cancer instance: C1 = 3 cancer / 7 no, C2 = 7 cancer / 983 no.
CREATE TABLE cancer AS
SELECT 'C1' AS class, CASE WHEN i <= 3 THEN 'cancer' ELSE 'no' END AS diagnosis FROM generate_series(1, 10) i
UNION ALL
SELECT 'C2', CASE WHEN i <= 7 THEN 'cancer' ELSE 'no' END FROM generate_series(1, 990) i;
SELECT privrisk.k_anonymity(h), privrisk.l_diversity(h, 'recursive', 3) AS l_recursive,
       round(privrisk.a_know(h)::numeric, 12) AS a_know, round(privrisk.a_acc(h)::numeric, 12) AS a_acc,
       round(privrisk.delta_disclosure(h)::numeric, 12) AS delta, round(ln(30)::numeric, 12) AS ln30,
       round(privrisk.t_closeness(h)::numeric, 12) AS t, round(privrisk.information_gain(h)::numeric, 12) AS gain
FROM (SELECT privrisk.hist(diagnosis) AS h FROM cancer GROUP BY class) AS c;

-- §4.3: every class equals the baseline, yet not 2-diverse.
SELECT privrisk.a_know(h), privrisk.a_acc(h), privrisk.information_gain(h), privrisk.delta_disclosure(h),
       privrisk.t_closeness(h), privrisk.l_diversity(h, 'recursive', 3) AS l_recursive
FROM (VALUES ('[["cancer", 9], ["no", 1]]'::privrisk.hist), ('[["cancer", 90], ["no", 10]]')) AS c(h);

-- Identity measures: classes of 1, 3 and 6 rows.
SELECT privrisk.k_anonymity(h), privrisk.prosecutor_risk(h), privrisk.average_risk(h),
       privrisk.records_at_risk(h, 0.2) AS at_risk_02, privrisk.records_at_risk(h, 1.0 / 3) AS at_risk_third,
       privrisk.l_diversity(h) AS l_distinct, round(privrisk.l_diversity(h, 'entropy')::numeric, 12) AS l_entropy
FROM (VALUES ('[["a", 1]]'::privrisk.hist), ('[["a", 2], ["b", 1]]'), ('[["b", 6]]')) AS c(h);

-- Ordered EMD (Li et al. §4.2): salaries 3k..11k; {3k,4k,5k} is 0.375 from the table.
SELECT round(privrisk.t_closeness(h, 'ordered')::numeric, 12) AS t_ordered,
       round(privrisk.t_closeness(h, 'equal')::numeric, 12) AS t_equal
FROM (SELECT privrisk.hist(salary) AS h
      FROM (VALUES (1, 3), (1, 4), (1, 5), (2, 6), (2, 8), (2, 11), (3, 7), (3, 9), (3, 10)) AS t(class, salary)
      GROUP BY class) AS c;

-- Hierarchical EMD: ground distance level(LCA) / height in the sensitive values' hierarchy.
SELECT privrisk.load_hierarchy('disease', $$
flu;respiratory infection;respiratory;*
pneumonia;respiratory infection;respiratory;*
bronchitis;respiratory infection;respiratory;*
pulmonary edema;vascular lung;respiratory;*
pulmonary embolism;vascular lung;respiratory;*
gastric ulcer;stomach;digestive;*
gastritis;stomach;digestive;*
stomach cancer;stomach;digestive;*
colitis;colon;digestive;*
colon cancer;colon;digestive;*
$$);
CREATE TABLE patients (zip text, disease text);
INSERT INTO patients VALUES ('476**', 'gastric ulcer'), ('476**', 'gastritis'), ('476**', 'stomach cancer'),
  ('4790*', 'gastric ulcer'), ('4790*', 'stomach cancer'), ('4790*', 'pneumonia'),
  ('4760*', 'flu'), ('4760*', 'bronchitis'), ('4760*', 'pulmonary edema'), ('4760*', 'pulmonary embolism'),
  ('4760*', 'colitis'), ('4760*', 'colon cancer'), ('4760*', 'gastritis'), ('4760*', 'flu');
SELECT round(privrisk.t_closeness(h, 'hierarchical', 'disease')::numeric, 12) AS t_hierarchical,
       round(privrisk.t_closeness(h)::numeric, 12) AS t_equal
FROM (SELECT privrisk.hist(disease) AS h FROM patients GROUP BY zip) AS c;
SELECT privrisk.audit('patients', ARRAY['zip'], 'disease', options => '{"sensitive_hierarchy": "disease"}')
       -> 't_hierarchical' AS audit_t_hierarchical;

-- hist: JSON text form, canonical order, NULL as ⊥, casts to jsonb, binary round trip.
SELECT privrisk.hist(x) FROM (VALUES ('b'), (NULL), ('a'), ('b'), (NULL)) AS t(x);
SELECT privrisk.hist(x) FROM (VALUES (3), (1), (3)) AS t(x);
SELECT privrisk.hist(*) FROM s7;
SELECT h, privrisk.hist_size(h), privrisk.hist_distinct(h), h::text::jsonb -> 0 AS first_pair
FROM (VALUES ('[[null, 2], ["z\"q", 1], ["a", 3]]'::privrisk.hist)) AS t(h);

-- audit() with a workload target and no hierarchies (failed in 0.9 with "hierarchies must have one
-- entry per column"): the quasi-identifiers are released as they are, so the report equals the one
-- with every hierarchy NULL at level 0, and its k is the smallest GROUP BY count.
CREATE TABLE outcomes AS
SELECT i AS id, (i % 5)::text AS zip, (i % 3)::text AS sex, CASE WHEN i % 2 = 0 THEN 'a' ELSE 'b' END AS dx,
       CASE WHEN i % 4 < 2 OR i % 5 = 0 THEN 'yes' ELSE 'no' END AS outcome
FROM generate_series(1, 100) AS i;
WITH only_target AS (SELECT privrisk.audit('outcomes', ARRAY['zip', 'sex'], 'dx', options => '{"target": "outcome"}') AS r),
     explicit AS (SELECT privrisk.audit('outcomes', ARRAY['zip', 'sex'], 'dx', ARRAY[NULL, NULL], ARRAY[0, 0],
                                        options => '{"target": "outcome"}') AS r)
SELECT o.r = e.r AS same_report, (o.r ->> 'k_anonymity')::int AS k,
       (SELECT min(c) FROM (SELECT count(*) AS c FROM outcomes GROUP BY zip, sex) g) AS k_by_sql,
       o.r -> 'utility' ->> 'target' AS target, (o.r -> 'utility' ->> 'u_max')::float8 BETWEEN 0 AND 1 AS utility_reported,
       o.r -> 'utility' ? 'askari_utility' AS askari_reported
FROM only_target o, explicit e;
DROP TABLE outcomes;

DROP VIEW s7_intact;
DROP TABLE s7, cancer, patients;
SELECT privrisk.drop_hierarchy('disease');
