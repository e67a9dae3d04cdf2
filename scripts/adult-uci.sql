-- Loads UCI Adult (train + test) into table adult: the 45,222 complete rows,
-- test labels without their trailing '.'. Run from the repository root; the
-- folder is $PRIVRISK_ADULT_DIR, by default ../shared/data/adult-uci.
SET client_min_messages = warning;
DROP TABLE IF EXISTS adult_raw, adult;
RESET client_min_messages;
CREATE TEMP TABLE adult_raw (age text, workclass text, fnlwgt text, education text, education_num text,
    marital_status text, occupation text, relationship text, race text, sex text, capital_gain text,
    capital_loss text, hours_per_week text, native_country text, salary_class text);
\copy adult_raw FROM PROGRAM 'scripts/adult-rows "${PRIVRISK_ADULT_DIR:-../shared/data/adult-uci}"' WITH (FORMAT csv)
CREATE TABLE adult AS
SELECT row_number() OVER () AS id, age::int AS age, workclass, fnlwgt::int AS fnlwgt, education,
       education_num::int AS education_num, marital_status, occupation, relationship, race, sex,
       capital_gain::int AS capital_gain, capital_loss::int AS capital_loss, hours_per_week::int AS hours_per_week,
       native_country, salary_class
FROM adult_raw
WHERE '?' <> ALL (ARRAY[age, workclass, fnlwgt, education, education_num, marital_status, occupation, relationship,
                        race, sex, capital_gain, capital_loss, hours_per_week, native_country, salary_class]);
DROP TABLE adult_raw;
ANALYZE adult;
