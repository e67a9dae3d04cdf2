-- UCI Adult as the census table: the complete rows, the demo's columns.
\i scripts/adult-uci.sql
DROP TABLE IF EXISTS census;
CREATE TABLE census AS
SELECT id, age, sex, race, native_country, marital_status, education, occupation, salary_class, workclass FROM adult;
ALTER TABLE census ADD PRIMARY KEY (id);
ANALYZE census;
