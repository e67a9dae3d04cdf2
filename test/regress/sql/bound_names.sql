-- One vocabulary of bounds (docs/glossary.md, "Bounds"): audit() takes the search's and the
-- profiles' names ck_k and t_hierarchy; kmax and sensitive_hierarchy, their older names in
-- audit() options, still work and mean the same.
SELECT privrisk.load_hierarchy('bn_disease', E'flu;respiratory;*\ncold;respiratory;*\nulcer;digestive;*\ngastritis;digestive;*\ncancer;other;*') AS height;
CREATE TABLE bn AS
SELECT (ARRAY['a', 'b', 'c'])[1 + i % 3] AS zip,
       (ARRAY['flu', 'cold', 'ulcer', 'gastritis', 'cancer'])[1 + (2 * (i % 3) + i % 2) % 5] AS disease
FROM generate_series(1, 60) AS i;

-- The same curve and the same hierarchical t under either name.
SELECT a.r->'ck_disclosure_curve' AS curve_ck_k, a.r->'ck_disclosure_curve' = b.r->'ck_disclosure_curve' AS same_as_kmax,
       jsonb_array_length(a.r->'ck_disclosure_curve') AS points
FROM privrisk.audit('bn', ARRAY['zip'], 'disease', options => '{"ck_k": 3}') AS a(r),
     privrisk.audit('bn', ARRAY['zip'], 'disease', options => '{"kmax": 3}') AS b(r);
SELECT round((a.r->>'t_hierarchical')::numeric, 6) AS t_hierarchical, a.r->'t_hierarchical' = b.r->'t_hierarchical' AS same_as_old_name
FROM privrisk.audit('bn', ARRAY['zip'], 'disease', options => '{"t_hierarchy": "bn_disease"}') AS a(r),
     privrisk.audit('bn', ARRAY['zip'], 'disease', options => '{"sensitive_hierarchy": "bn_disease"}') AS b(r);
-- Both names with one value are one option; with two values, an error.
SELECT jsonb_array_length(privrisk.audit('bn', ARRAY['zip'], 'disease', options => '{"ck_k": 2, "kmax": 2}')->'ck_disclosure_curve') AS points;
SELECT privrisk.audit('bn', ARRAY['zip'], 'disease', options => '{"ck_k": 2, "kmax": 4}');
SELECT privrisk.audit('bn', ARRAY['zip'], 'disease', options => '{"t_hierarchy": "bn_disease", "sensitive_hierarchy": "other"}');
-- Each name is checked against the same range, and named in the error.
SELECT privrisk.audit('bn', ARRAY['zip'], 'disease', options => '{"ck_k": 201}');
SELECT privrisk.audit('bn', ARRAY['zip'], 'disease', options => '{"kmax": 201}');
SELECT privrisk.search('bn', ARRAY['zip'], ARRAY[NULL], 'disease', '{"c": 0.9, "ck_k": 201}');
SELECT privrisk.create_profile('bn_bad', '{"c": 0.9, "ck_k": 201}');
-- A profile's ck_k beside a caller's kmax: one value, or an error.
SELECT privrisk.create_profile('bn_ck', '{"c": 0.99, "ck_k": 2}');
SELECT r->'verdict'->'publishable' AS publishable, jsonb_array_length(r->'ck_disclosure_curve') AS points
FROM privrisk.audit('bn', ARRAY['zip'], 'disease', options => '{"kmax": 2}', profile => 'bn_ck') AS r;
SELECT privrisk.audit('bn', ARRAY['zip'], 'disease', options => '{"kmax": 5}', profile => 'bn_ck');
SELECT privrisk.audit('bn', ARRAY['zip'], 'disease', options => '{"ck_k": 5}', profile => 'bn_ck');
-- search() and profiles have always said ck_k and t_hierarchy: the older names are audit()'s only.
SELECT privrisk.search('bn', ARRAY['zip'], ARRAY[NULL], 'disease', '{"c": 0.9, "kmax": 2}');
SELECT privrisk.create_profile('bn_old', '{"c": 0.9, "kmax": 2}');

SELECT privrisk.drop_profile('bn_ck');
DROP TABLE bn;
SELECT privrisk.drop_hierarchy('bn_disease');
