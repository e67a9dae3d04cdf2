-- UCI Adult (train + test) as the census table: complete rows only.
-- The shell script pipes the cleaned files into adult_raw, then loads the hierarchies.
DROP TABLE IF EXISTS census;
CREATE TABLE census AS
SELECT row_number() OVER () AS id, age::int AS age, sex, race, native_country, marital_status, education,
       occupation, salary_class, workclass
FROM adult_raw
WHERE '?' <> ALL (ARRAY[workclass, education, marital_status, occupation, relationship, race, sex,
                        native_country, salary_class]);
ALTER TABLE census ADD PRIMARY KEY (id);
ANALYZE census;
DROP TABLE adult_raw;
