-- A census-like table, generated and seeded (psql variables :rows and :seed).
-- Marginals loosely follow the 1994 US census extract that UCI Adult comes
-- from; ages, marital status and salary are correlated so classes are uneven.
SET client_min_messages = warning;
SET max_parallel_workers_per_gather = 0;  -- one process draws the numbers: the same seed gives the same table
SELECT setseed(:seed);

DROP TABLE IF EXISTS census;
CREATE TABLE census AS
WITH draws AS (
    SELECT i, 1 - random() AS u1, random() AS u2, random() AS u_sex, random() AS u_race, random() AS u_zip,
           random() AS u_marital, random() AS u_edu, random() AS u_occ, random() AS u_salary
    FROM generate_series(1, :rows) AS i
), people AS (
    SELECT i, u_sex, u_race, u_zip, u_marital, u_edu, u_occ, u_salary,
           -- Box-Muller normal, mean 38.5, sd 13.5, clipped to 17..90
           greatest(17, least(90, round(38.5 + 13.5 * sqrt(-2 * ln(u1)) * cos(2 * pi() * u2))))::int AS age
    FROM draws
), coded AS (
    SELECT i, age,
           (ARRAY['Male', 'Female'])[width_bucket(u_sex, ARRAY[0, 0.67])] AS sex,
           (ARRAY['White', 'Black', 'Asian-Pac-Islander', 'Amer-Indian-Eskimo', 'Other'])
               [width_bucket(u_race, ARRAY[0, 0.854, 0.950, 0.981, 0.991])] AS race,
           -- about 2,000 zip codes, a few of them large
           lpad((10000 + (hashint4(floor(2000 * u_zip * u_zip)::int) & 2147483647) % 89999)::text, 5, '0') AS zip,
           CASE WHEN age < 25 THEN
               (ARRAY['Never-married', 'Married-civ-spouse', 'Divorced', 'Separated', 'Married-spouse-absent'])
                   [width_bucket(u_marital, ARRAY[0, 0.82, 0.94, 0.97, 0.99])]
           ELSE
               (ARRAY['Married-civ-spouse', 'Never-married', 'Divorced', 'Widowed', 'Separated',
                      'Married-spouse-absent', 'Married-AF-spouse'])
                   [width_bucket(u_marital, ARRAY[0, 0.52, 0.72, 0.88, 0.93, 0.97, 0.998])]
           END AS marital_status,
           width_bucket(u_edu, ARRAY[0, 0.002, 0.007, 0.017, 0.033, 0.048, 0.076, 0.112, 0.125, 0.448, 0.672,
                                     0.714, 0.747, 0.914, 0.968, 0.986]) AS edu_rank,
           (ARRAY['Prof-specialty', 'Craft-repair', 'Exec-managerial', 'Adm-clerical', 'Sales', 'Other-service',
                  'Machine-op-inspct', 'Transport-moving', 'Handlers-cleaners', 'Farming-fishing', 'Tech-support',
                  'Protective-serv', 'Priv-house-serv', 'Armed-Forces'])
               [width_bucket(u_occ, ARRAY[0, 0.134, 0.267, 0.399, 0.522, 0.641, 0.748, 0.814, 0.866, 0.911, 0.943,
                                          0.975, 0.996, 0.9997])] AS occupation,
           u_salary
    FROM people
)
SELECT i AS id, age, sex, race, zip, marital_status,
       (ARRAY['Preschool', '1st-4th', '5th-6th', '7th-8th', '9th', '10th', '11th', '12th', 'HS-grad',
              'Some-college', 'Assoc-voc', 'Assoc-acdm', 'Bachelors', 'Masters', 'Prof-school', 'Doctorate'])[edu_rank]
           AS education,
       occupation,
       -- P(>50K) rises with education and with age up to the fifties
       CASE WHEN u_salary < 1 / (1 + exp(-(-7.3 + 0.32 * edu_rank + 0.09 * least(age, 55) - 0.0004 * age * age)))
            THEN '>50K' ELSE '<=50K' END AS salary_class
FROM coded;
ALTER TABLE census ADD PRIMARY KEY (id);
ANALYZE census;
RESET max_parallel_workers_per_gather;
