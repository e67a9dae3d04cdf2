-- privrisk.check_catalog(): one row per broken invariant of the catalogs. A
-- consistent catalog gives none; each invariant broken behind the extension's
-- back (as a superuser, with plain SQL) gives its row, and repaired, none again.
CREATE TABLE cc_t AS SELECT i AS id, 20 + i % 50 AS age, CASE WHEN i % 2 = 0 THEN 'F' ELSE 'M' END AS sex
FROM generate_series(1, 300) AS i;
SELECT privrisk.interval_hierarchy('cc_age', 0, 100, ARRAY[10]), privrisk.load_hierarchy('cc_sex', E'F;*\nM;*');
SELECT privrisk.create_policy('cc_p', 'cc_t');
SELECT privrisk.add_rule('cc_p', 'sex', 'gen', 'false', 'cc_sex', 1);
SELECT privrisk.add_rule('cc_p', 'age', 'hide', 'id > 10');
SELECT privrisk.set_budget('cc_t', 2, 1e-4);
SELECT count(*) > 0 AS released FROM privrisk.dp_release('cc_t', ARRAY['age'], ARRAY['cc_age'], 0.5, 1e-6,
                                                         levels => ARRAY[1], seed => 3) AS r(a text);
CREATE VIEW cc_mine AS
SELECT invariant, object, problem FROM privrisk.check_catalog() WHERE object LIKE 'cc\_%' OR object LIKE 'public.cc\_%';
SELECT * FROM cc_mine;

-- Each invariant, broken and repaired.
UPDATE privrisk.budget SET spent_epsilon = 0.1 WHERE relation = 'cc_t'::regclass;
SELECT * FROM cc_mine;
UPDATE privrisk.budget SET spent_epsilon = 0.5 WHERE relation = 'cc_t'::regclass;
INSERT INTO privrisk.hierarchy_leaf VALUES ('cc_sex', 99, ARRAY['X', 'Y']);
INSERT INTO privrisk.hierarchy_leaf VALUES ('cc_sex', 98, ARRAY['F']);
SELECT * FROM cc_mine ORDER BY problem;
DELETE FROM privrisk.hierarchy_leaf WHERE hierarchy = 'cc_sex' AND line IN (98, 99);
ALTER TABLE cc_t RENAME COLUMN sex TO gender;
SELECT * FROM cc_mine;
ALTER TABLE cc_t RENAME COLUMN gender TO sex;
UPDATE privrisk.policy_rule SET condition_tree = NULL WHERE policy = 'public.cc_p' AND rule = 2;
SELECT * FROM cc_mine;
SELECT privrisk.refresh_policy('cc_p');
SELECT * FROM cc_mine;

DROP VIEW cc_mine;
SELECT privrisk.drop_policy('cc_p');
DROP TABLE cc_t;
SELECT privrisk.drop_hierarchy('cc_age'), privrisk.drop_hierarchy('cc_sex');
