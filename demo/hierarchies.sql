-- Hierarchies for the generated census table: builders for age and zip, and
-- small CSVs (this demo's own groupings) for the categorical columns.
SELECT privrisk.interval_hierarchy('age', 0, 100, ARRAY[5, 10, 20]) AS age,
       privrisk.prefix_hierarchy('zip', 5) AS zip,
       privrisk.load_hierarchy('sex', E'Male;*\nFemale;*') AS sex,
       privrisk.load_hierarchy('race', E'White;*\nBlack;*\nAsian-Pac-Islander;*\nAmer-Indian-Eskimo;*\nOther;*') AS race,
       privrisk.load_hierarchy('marital_status', $csv$
Married-civ-spouse;Married;*
Married-AF-spouse;Married;*
Married-spouse-absent;Married;*
Separated;Once married;*
Divorced;Once married;*
Widowed;Once married;*
Never-married;Never married;*
$csv$) AS marital_status,
       privrisk.load_hierarchy('education', $csv$
Preschool;Compulsory;Basic;*
1st-4th;Compulsory;Basic;*
5th-6th;Compulsory;Basic;*
7th-8th;Compulsory;Basic;*
9th;Some high school;Basic;*
10th;Some high school;Basic;*
11th;Some high school;Basic;*
12th;Some high school;Basic;*
HS-grad;High school graduate;Secondary;*
Some-college;College;Secondary;*
Assoc-voc;College;Secondary;*
Assoc-acdm;College;Secondary;*
Bachelors;University;Higher;*
Masters;University;Higher;*
Prof-school;University;Higher;*
Doctorate;University;Higher;*
$csv$) AS education,
       privrisk.load_hierarchy('occupation', $csv$
Prof-specialty;White collar;*
Exec-managerial;White collar;*
Adm-clerical;White collar;*
Sales;White collar;*
Tech-support;White collar;*
Craft-repair;Blue collar;*
Machine-op-inspct;Blue collar;*
Transport-moving;Blue collar;*
Handlers-cleaners;Blue collar;*
Farming-fishing;Blue collar;*
Other-service;Service;*
Protective-serv;Service;*
Priv-house-serv;Service;*
Armed-Forces;Service;*
$csv$) AS occupation,
       privrisk.load_hierarchy('salary_class', E'<=50K;*\n>50K;*') AS salary_class;
