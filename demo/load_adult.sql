-- UCI Adult (train + test) as the census table, with ARX's hierarchies.
-- The shell script pipes the cleaned files into adult_raw and sets :hier (a folder).
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

\set f :hier/adult_hierarchy_age.csv
\set age `cat :f`
\set f :hier/adult_hierarchy_sex.csv
\set sex `cat :f`
\set f :hier/adult_hierarchy_race.csv
\set race `cat :f`
\set f :hier/adult_hierarchy_native-country.csv
\set country `cat :f`
\set f :hier/adult_hierarchy_marital-status.csv
\set marital `cat :f`
\set f :hier/adult_hierarchy_education.csv
\set education `cat :f`
\set f :hier/adult_hierarchy_occupation.csv
\set occupation `cat :f`
\set f :hier/adult_hierarchy_salary-class.csv
\set salary `cat :f`
\set f :hier/adult_hierarchy_workclass.csv
\set workclass `cat :f`
SELECT privrisk.load_hierarchy('age', :'age') AS age, privrisk.load_hierarchy('sex', :'sex') AS sex,
       privrisk.load_hierarchy('race', :'race') AS race,
       privrisk.load_hierarchy('native_country', :'country') AS native_country,
       privrisk.load_hierarchy('marital_status', :'marital') AS marital_status,
       privrisk.load_hierarchy('education', :'education') AS education,
       privrisk.load_hierarchy('occupation', :'occupation') AS occupation,
       privrisk.load_hierarchy('salary_class', :'salary') AS salary_class,
       privrisk.load_hierarchy('workclass', :'workclass') AS workclass;
