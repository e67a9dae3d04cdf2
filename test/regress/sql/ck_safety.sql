-- (c,k)-safety ([MKMGH07]), against exact fractions; values rounded to 12 digits.
CREATE FUNCTION round_curve(float8[]) RETURNS numeric[] LANGUAGE sql IMMUTABLE
    AS $$ SELECT array_agg(round(x::numeric, 12) ORDER BY i) FROM unnest($1) WITH ORDINALITY AS u(x, i) $$;

-- Figure 1 (paper §1): the original table.
CREATE TABLE fig1 (name text, zip text, age int, sex text, disease text);
INSERT INTO fig1 VALUES
  ('Bob', '14850', 23, 'M', 'Flu'), ('Charlie', '14850', 24, 'M', 'Flu'), ('Dave', '14850', 25, 'M', 'Lung Cancer'),
  ('Ed', '14850', 27, 'M', 'Lung Cancer'), ('Frank', '14853', 29, 'M', 'Mumps'), ('Gloria', '14850', 21, 'F', 'Flu'),
  ('Hannah', '14850', 22, 'F', 'Flu'), ('Irma', '14853', 24, 'F', 'Breast Cancer'),
  ('Jessica', '14853', 26, 'F', 'Ovarian Cancer'), ('Karen', '14853', 28, 'F', 'Heart Disease');

-- Figure 3: buckets male / female. MD_k = 2/5, 2/3, 1, 1 (the paper's printed 10/19 is wrong).
SELECT round_curve(privrisk.ck_disclosure_curve(h, 3)) AS md, round(2.0 / 3, 12) AS two_thirds,
       round_curve(privrisk.neg_disclosure_curve(h, 3)) AS md_negated
FROM (SELECT privrisk.hist(disease) AS h FROM fig1 GROUP BY sex) AS b;
-- The female bucket alone: 2/5, 4/7, 4/5, 1; with negated atoms 2/5, 1/2, 2/3, 1.
SELECT round_curve(privrisk.ck_disclosure_curve(h, 3)) AS md, round(4.0 / 7, 12) AS four_sevenths,
       round_curve(privrisk.neg_disclosure_curve(h, 3)) AS md_negated
FROM (SELECT privrisk.hist(disease) AS h FROM fig1 WHERE sex = 'F') AS b;
-- Figure 1 as one bucket: 2/5, 6/11, 12/17, 28/33.
SELECT round_curve(privrisk.ck_disclosure_curve(h, 3)) AS md,
       ARRAY[round(2.0 / 5, 12), round(6.0 / 11, 12), round(12.0 / 17, 12), round(28.0 / 33, 12)] AS expected
FROM (SELECT privrisk.hist(disease) AS h FROM fig1) AS b;
-- Single value and curve agree; ck_safe is strict, a tie is unsafe.
SELECT round(privrisk.ck_max_disclosure(h, 1)::numeric, 12) AS md1, privrisk.ck_safe(h, 0.7, 1) AS safe_07,
       privrisk.ck_safe(h, 2.0 / 3, 1) AS safe_tie, privrisk.ck_safe(h, 0.41, 0) AS safe_041_k0,
       privrisk.ck_safe(h, 0.4, 0) AS safe_04_k0
FROM (SELECT privrisk.hist(disease) AS h FROM fig1 GROUP BY sex) AS b;

-- The worst case for k = 1: "if Ed has lung cancer then Ed has flu" (member 0 of the male bucket).
SELECT w->'max_disclosure' AS md, w->'target'->'value' AS target_value, w->'target'->'member' AS target_member,
       w->'target'->'bucket' AS target_bucket, w->'implications'->0->'if'->'value' AS if_value,
       w->'implications'->0->'if'->'member' AS if_member
FROM (SELECT privrisk.ck_worst_case(h, 1) AS w FROM (SELECT privrisk.hist(disease) AS h FROM fig1 GROUP BY sex) AS b) AS x;

-- §4.7: small single buckets.
SELECT counts,
       round_curve((SELECT privrisk.ck_disclosure_curve(h, 4) FROM (SELECT privrisk.hist(v) AS h FROM unnest(counts::text[]) AS v) AS b))
           AS md,
       round_curve((SELECT privrisk.neg_disclosure_curve(h, 4) FROM (SELECT privrisk.hist(v) AS h FROM unnest(counts::text[]) AS v) AS b))
           AS md_negated
FROM (VALUES ('{a,a,a,b,c}'), ('{a,b}'), ('{a}'), ('{a,a,b,b,c,c}'), ('{a,a,a,a,b,b,c,d,e}'), ('{a,b,c,d}')) AS t(counts)
ORDER BY counts;
SELECT round(6.0 / 7, 12) AS six_sevenths, round(56.0 / 71, 12) AS r56_71, round(56.0 / 61, 12) AS r56_61;

-- §4.8: the whole Adult table as one bucket (occupation): 3010/22611, 430/2801, …, 430/431, 1;
-- implications and negated atoms coincide.
WITH adult AS (SELECT '[["Craft-repair", 6020], ["Prof-specialty", 6008], ["Exec-managerial", 5984],
    ["Adm-clerical", 5540], ["Sales", 5408], ["Other-service", 4808], ["Machine-op-inspct", 2970],
    ["Transport-moving", 2316], ["Handlers-cleaners", 2046], ["Farming-fishing", 1480], ["Tech-support", 1420],
    ["Protective-serv", 976], ["Priv-house-serv", 232], ["Armed-Forces", 14]]'::privrisk.hist AS h)
SELECT round_curve(privrisk.ck_disclosure_curve(h, 13)) = round_curve(ARRAY[3010.0 / 22611, 430.0 / 2801, 602.0 / 3323,
           602.0 / 2769, 3010.0 / 11141, 3010.0 / 8737, 215.0 / 518, 1505.0 / 3047, 3010.0 / 5071, 3010.0 / 4331,
           3010.0 / 3621, 3010.0 / 3133, 430.0 / 431, 1]::float8[]) AS matches_digest,
       round_curve(privrisk.ck_disclosure_curve(h, 13)) = round_curve(privrisk.neg_disclosure_curve(h, 13)) AS same_as_negated,
       round(privrisk.ck_max_disclosure(h, 9)::numeric, 10) AS md9
FROM adult;

-- §4.6: the generalization lattice of Figure 1 (zip 14850 -> 1485*, age 2x -> 2*, sex -> *): every
-- node's curve, and the minimal (c,k)-safe nodes.
SELECT privrisk.load_hierarchy('f1zip', E'14850;1485*;*\n14853;1485*;*');
SELECT privrisk.interval_hierarchy('f1age', 0, 100, ARRAY[10]);
SELECT privrisk.load_hierarchy('f1sex', E'M;*\nF;*');
CREATE TABLE lattice AS
SELECT z, a, s, (SELECT privrisk.ck_disclosure_curve(h, 3) FROM (
           SELECT privrisk.hist(disease) AS h FROM fig1
           GROUP BY privrisk.gen(zip, 'f1zip', z), privrisk.gen(age, 'f1age', a), privrisk.gen(sex, 'f1sex', s)) AS b) AS md
FROM generate_series(0, 1) z, generate_series(0, 1) a, generate_series(0, 1) s;
SELECT z, a, s, round_curve(md) AS md FROM lattice ORDER BY z, a, s;
-- minimal safe nodes: safe, and no node one level lower in one attribute is safe
SELECT c, k, array_agg(ARRAY[z, a, s] ORDER BY z, a, s) AS minimal_safe_nodes
FROM (VALUES (1.0, 0), (0.5, 0), (1.0, 1), (0.7, 1), (1.0, 2)) AS q(c, k),
     LATERAL (SELECT z, a, s FROM lattice l
              WHERE md[k + 1] < c - 1e-12
                AND NOT EXISTS (SELECT 1 FROM lattice m
                                WHERE m.md[k + 1] < c - 1e-12 AND (m.z, m.a, m.s) <> (l.z, l.a, l.s)
                                  AND m.z <= l.z AND m.a <= l.a AND m.s <= l.s)) AS n
GROUP BY c, k ORDER BY k, c DESC;

-- hist_merge rolls classes up: the Figure 3 buckets merged give Figure 1 as one bucket.
SELECT privrisk.hist_merge(h), privrisk.hist_merge(h)::text = (SELECT privrisk.hist(disease) FROM fig1)::text AS same
FROM (SELECT privrisk.hist(disease) AS h FROM fig1 GROUP BY sex) AS b;
SELECT round_curve(privrisk.ck_disclosure_curve(m, 3)) AS md_rolled_up
FROM (SELECT privrisk.hist_merge(h) AS m FROM (SELECT privrisk.hist(disease) AS h FROM fig1 GROUP BY sex) AS b) AS r;

-- audit() reports the curve (option kmax, default 10).
SELECT round_curve(ARRAY(SELECT jsonb_array_elements_text(
           privrisk.audit('fig1', ARRAY['sex'], 'disease', options => '{"kmax": 3}')->'ck_disclosure_curve')::float8)) AS audit_curve;
SELECT jsonb_array_length(privrisk.audit('fig1', ARRAY['sex'], 'disease')->'ck_disclosure_curve') AS default_length;

-- Bad input: k out of range, c out of range, NULLs, k changing between rows; empty input is NULL.
SELECT privrisk.ck_max_disclosure(h, -1) FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS b(h);
SELECT privrisk.ck_max_disclosure(h, 201) FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS b(h);
SELECT privrisk.ck_max_disclosure(h, NULL) FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS b(h);
SELECT privrisk.ck_safe(h, 0, 1) FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS b(h);
SELECT privrisk.ck_safe(h, 1.5, 1) FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS b(h);
SELECT privrisk.ck_safe(h, NULL, 1) FROM (VALUES ('[["a", 1]]'::privrisk.hist)) AS b(h);
SELECT privrisk.ck_max_disclosure(h, k) FROM (VALUES ('[["a", 1]]'::privrisk.hist, 1), ('[["b", 2]]', 2)) AS b(h, k);
SELECT privrisk.audit('fig1', ARRAY['sex'], 'disease', options => '{"kmax": 500}');
SELECT privrisk.ck_max_disclosure(h, 2) IS NULL AS empty_is_null, privrisk.ck_worst_case(h, 2) IS NULL AS empty_witness,
       privrisk.neg_disclosure_curve(h, 2) IS NULL AS empty_neg
FROM (SELECT privrisk.hist(disease) AS h FROM fig1 WHERE false GROUP BY sex) AS b;
-- A single-row bucket discloses everything, at every k; NULL hists are ignored.
SELECT round_curve(privrisk.ck_disclosure_curve(h, 3)) AS md
FROM (VALUES ('[["a", 1]]'::privrisk.hist), ('[["a", 5], ["b", 5]]'), (NULL)) AS b(h);

DROP TABLE fig1, lattice;
DROP FUNCTION round_curve(float8[]);
SELECT privrisk.drop_hierarchy(name) FROM privrisk.hierarchy WHERE name LIKE 'f1%' ORDER BY name;
