-- Hostile input to options, constraints, mappings and DP parameters: each is
-- refused with an ERROR that names the option or argument, the bad value and
-- what is allowed, before anything runs; nothing is stored.
CREATE TABLE sbi_people (zip text, age text, disease text);
INSERT INTO sbi_people VALUES ('47906', '34', 'flu'), ('47907', '35', 'cold'), ('47906', '36', 'flu'),
                              ('47905', '50', 'cancer'), ('47905', '50', 'flu');
CREATE TABLE sbi_dictionary (zip text, age text);
INSERT INTO sbi_dictionary VALUES ('47906', '34'), ('47907', '35'), ('47905', '50');
SELECT privrisk.prefix_hierarchy('sbi_zip', 5);
SELECT privrisk.load_hierarchy('sbi_age', E'34;30-39;*\n35;30-39;*\n36;30-39;*\n50;50-59;*');

-- audit(): option values of the wrong type or out of range.
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"kmax": 2.5}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"kmax": 1e30}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"kmax": 99999999999999999999999}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"kmax": -1}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"kmax": 201}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"kmax": "10"}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"kmax": 10.0}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"l_c": 1e400}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"l_c": 1e-400}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"l_c": 0}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"l_c": true}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"risk_threshold": 1.5}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"risk_threshold": null}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"risk_threshold": "0.5"}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"risk_threshold": [0.5]}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"sensitive_hierarchy": 5}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"sensitive_hierarchy": ""}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"target": {"column": "disease"}}');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"target": "disease", "classifier": "svm"}');
-- audit(): options that are not an object, or unknown.
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '"kmax"');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => 'null');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => NULL);
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '[{"kmax": 3}]');
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', options => '{"kmaxx": 3}');
-- audit(): levels and hierarchies.
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', ARRAY['sbi_zip'], ARRAY[9]);
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', ARRAY['sbi_zip'], ARRAY[-1]);
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', ARRAY['sbi_zip'], ARRAY[NULL::int]);
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', ARRAY['sbi_zip'], ARRAY[1, 0]);
SELECT privrisk.audit('sbi_people', ARRAY['zip'], 'disease', ARRAY['no_such_hierarchy'], ARRAY[1]);
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], 'disease', ARRAY['sbi_zip'], ARRAY[1, 1]);
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'no_such_column'], 'disease');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'zip'], 'disease');

-- audit(): the dictionary options.
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": 42}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": ""}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "no_such_dictionary"}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"mapping": [{"released": "zip"}]}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"leaf_weights": [0.5, 0.5]}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "leaf_weights": ["x", 0.5]}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "leaf_weights": [0.5, null]}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "leaf_weights": [-1, 0.5]}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "leaf_weights": [1e400, 0.5]}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "leaf_weights": []}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "leaf_weights": [0.5]}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "leaf_weights": {"zip": 0.5}}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "mapping": []}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "mapping": {"released": "zip"}}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "mapping": ["zip"]}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "mapping": [{"released": 5}]}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "mapping": [{"released": "zip", "hierarchy": ["sbi_zip"]}]}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "sensitivity_family": "cubic"}');
SELECT privrisk.audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "sensitivity_family": 1}');
-- A mapping wider than one aggregate call takes (99 arguments): a program limit, before the scan.
SELECT privrisk.audit('sbi_people', ARRAY['zip'],
                      options => jsonb_build_object('dictionary', 'sbi_dictionary', 'mapping',
                                                    (SELECT jsonb_agg(jsonb_build_object('released', 'zip')) FROM generate_series(1, 100))));
-- A failing audit records nothing.
CALL privrisk.record_audit('sbi_people', ARRAY['zip'], 'disease', options => '{"kmax": 2.5}');
CALL privrisk.record_audit('sbi_people', ARRAY['zip', 'age'], options => '{"dictionary": "sbi_dictionary", "mapping": []}');
SELECT count(*) AS audits_recorded FROM privrisk.audit_log WHERE source = 'sbi_people';

-- search() and lattice(): constraints.
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"k": 2.5}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"k": "5"}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"k": 1e30}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"k": -3}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'disease', '{"l": 0.5}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'disease', '{"l": "2"}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'disease', '{"l": 2, "l_kind": "fancy"}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'disease', '{"l": 2, "l_kind": 3}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'disease', '{"l": 2, "l_kind": "recursive", "l_c": -2}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'disease', '{"t": 2}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'disease', '{"t": 0.5, "t_kind": "earth"}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'disease', '{"t": 0.5, "t_kind": "hierarchical", "t_hierarchy": 7}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'disease', '{"delta": 0}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'disease', '{"c": 0, "ck_k": 2}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'disease', '{"c": 0.5, "ck_k": 2.5}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'disease', '{"c": 0.5, "ck_k": 1e10}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"max_risk": -0.5}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"average_risk": "high"}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"max_suppression": 1e400}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"k": 2, "colour": "blue"}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '[]');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => NULL);
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"l_c": 2}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"k": 2, "dictionary": "sbi_dictionary", "mapping": []}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"k": 2, "dictionary": "sbi_dictionary", "leaf_weights": [0.1, 0.2]}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"k": 2, "leaf_weights": [0.1]}');
SELECT * FROM privrisk.lattice('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"k": 2.5}');
SELECT privrisk.search('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], constraints => '{"k": 2}', utility => 'precision');
SELECT privrisk.search('sbi_people', ARRAY['zip', 'age'], ARRAY['sbi_zip'], constraints => '{"k": 2}');

-- DP parameters: epsilon is a rate, too large past 36 (1 - e^-epsilon rounds to 1).
SELECT * FROM privrisk.dp_parameters(1000, 1e-5);
SELECT * FROM privrisk.dp_parameters(37, 0.5);
SELECT * FROM privrisk.dp_parameters(5e-324, 0.5);
SELECT * FROM privrisk.dp_parameters('Infinity', 1e-5);
SELECT * FROM privrisk.dp_parameters(1, 'NaN');
SELECT * FROM privrisk.dp_parameters(1, -1);
SELECT * FROM privrisk.dp_parameters(1, 'Infinity');
-- dp_release: bad parameters spend nothing.
SELECT privrisk.set_budget('sbi_people', 'NaN', 0.1);
SELECT privrisk.set_budget('sbi_people', 1, 'NaN');
SELECT privrisk.set_budget('sbi_people', 30, 0.5);
SELECT * FROM privrisk.dp_release('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 1000, 1e-5, levels => ARRAY[1]) AS r(zip text);
SELECT * FROM privrisk.dp_release('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 1, 0.1, levels => ARRAY[9]) AS r(zip text);
SELECT * FROM privrisk.dp_release('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 1, 0.1, levels => ARRAY[-1]) AS r(zip text);
SELECT * FROM privrisk.dp_release('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 1, 0.1, levels => ARRAY[NULL::int]) AS r(zip text);
SELECT * FROM privrisk.dp_release('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 'NaN', 0.1, levels => ARRAY[1]) AS r(zip text);
SELECT * FROM privrisk.dp_release('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 1, 0.1, output => 'everything', levels => ARRAY[1]) AS r(zip text);
SELECT * FROM privrisk.dp_release('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 1, 0.1, mechanism => 'fouad', drop_probability => 'NaN') AS r(zip text);
SELECT * FROM privrisk.dp_release('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 1, 0.1, mechanism => 'fouad', drop_probability => 0.5, theta0 => 'NaN') AS r(zip text);
SELECT * FROM privrisk.dp_release('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 1, 0.1, mechanism => 'fouad', drop_probability => 0.5, lambda => -1) AS r(zip text);
SELECT * FROM privrisk.dp_release('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 1, 0.1, mechanism => 'fouad', drop_probability => 0.5, kappa => 17) AS r(zip text);
SELECT * FROM privrisk.dp_release('sbi_people', ARRAY['zip'], ARRAY['sbi_zip'], 1, 0.1, mechanism => 'fouad', drop_probability => 0.5,
                                  sensitivity => 'harmonic', leaf_weights => ARRAY[NULL::float8]) AS r(zip text);
SELECT spent_epsilon, spent_delta FROM privrisk.budget WHERE relation = 'sbi_people'::regclass;
SELECT count(*) AS ledger_rows FROM privrisk.budget_ledger WHERE relation = 'sbi_people'::regclass;

-- Identification: mappings, modes, levels.
SELECT * FROM privrisk.match_counts('sbi_people', 'sbi_dictionary', '[]');
SELECT * FROM privrisk.match_counts('sbi_people', 'sbi_dictionary', 'null');
SELECT * FROM privrisk.match_counts('sbi_people', 'sbi_dictionary', NULL);
SELECT * FROM privrisk.match_counts('sbi_people', 'sbi_dictionary', '[{"released": "zip", "dictionary": 7}]');
SELECT * FROM privrisk.match_counts('sbi_people', 'sbi_dictionary', '[{"released": "zip"}, {"released": "no_such_column"}]');
SELECT * FROM privrisk.match_counts('sbi_people', 'sbi_dictionary',
                                    (SELECT jsonb_agg(jsonb_build_object('released', 'zip')) FROM generate_series(1, 100)));
SELECT * FROM privrisk.match_counts('sbi_people', 'sbi_dictionary', '[{"released": "zip"}]', 'jaro', 'NaN');
SELECT * FROM privrisk.match_counts('sbi_people', 'sbi_dictionary', '[{"released": "zip", "hierarchy": "sbi_zip"}]', levels => ARRAY[9]);
SELECT * FROM privrisk.match_counts('sbi_people', 'sbi_dictionary', '[{"released": "zip", "hierarchy": "sbi_zip"}]', levels => ARRAY[-1]);
SELECT * FROM privrisk.match_counts('sbi_people', 'sbi_dictionary', '[{"released": "zip", "hierarchy": "sbi_zip"}]', levels => ARRAY[1, 1]);
SELECT * FROM privrisk.match_counts('sbi_people', 'sbi_dictionary', '[{"released": "zip", "hierarchy": "sbi_zip"}]', levels => ARRAY[NULL::int]);
SELECT privrisk.match_count(ARRAY['47906'], 'sbi_dictionary', '[]');
SELECT privrisk.match_count(ARRAY['47906', NULL], 'sbi_dictionary', '[{"released": "zip"}]');
-- Optimal disclosure.
\set mapping '''[{"released": "zip", "hierarchy": "sbi_zip"}, {"released": "age", "hierarchy": "sbi_age"}]'''
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'sbi_dictionary', :mapping, ARRAY[0.2, NULL], 2);
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'sbi_dictionary', :mapping, ARRAY[0.2, 0.4], 'NaN');
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'sbi_dictionary', :mapping, ARRAY[0.2, 0.4], 2, problem => 'maximize');
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'sbi_dictionary', :mapping, ARRAY[0.2, 0.4], 2, family => 'cubic');
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'sbi_dictionary', :mapping, ARRAY[0.2, 0.4], method => 'exhaustive',
                                   problem => 'lagrangian', lambda => 'Infinity');
SELECT privrisk.optimal_disclosure(ARRAY['47906', '34'], 'sbi_dictionary', '[]', ARRAY[0.2, 0.4], 2);
SELECT * FROM privrisk.optimal_disclosures('sbi_people', 'sbi_dictionary', '{}', ARRAY[0.2, 0.4], 2);
SELECT privrisk.optimal_generalization('sbi_people', 'sbi_dictionary', :mapping, ARRAY[0.2, 0.4], 'NaN');
SELECT privrisk.optimal_generalization('sbi_people', 'sbi_dictionary', :mapping, ARRAY[0.2, 0.4, 0.6], 2);
SELECT privrisk.risk_bound_holds('sbi_people', 'sbi_dictionary', 'sbi_dictionary', 'zip', '[]');
SELECT privrisk.dictionary_risk('sbi_people', 'sbi_dictionary', '[]', ARRAY[]::float8[]);
SELECT privrisk.dictionary_options('{}', ARRAY['zip'], NULL);
SELECT privrisk.dictionary_options('{"dictionary": "sbi_dictionary", "leaf_weights": [0.1, 0.2]}', ARRAY['zip'], NULL);
SELECT privrisk.independent_top_k(ARRAY[0.1, 0.2], ARRAY[0.5], 10, 1);
SELECT privrisk.independent_top_k(ARRAY[0.1, 0.2], ARRAY[0.5, 0.5], -10, 1);
SELECT privrisk.independent_top_k(ARRAY[0.1, 'NaN'], ARRAY[0.5, 0.5], 10, 1);
SELECT privrisk.sensitivity(ARRAY['47906'], ARRAY['sbi_zip'], ARRAY[0.2, 0.3]);
SELECT privrisk.sensitivity(ARRAY['47906'], ARRAY['sbi_zip'], ARRAY[0.2], 'cubic');
SELECT privrisk.loss(1, -1);
SELECT privrisk.loss(1, 1, 'NaN');
SELECT privrisk.harmonic_weight('sbi_zip', '47906', 'NaN');

-- Nothing left for the tests after this one.
DROP TABLE sbi_people, sbi_dictionary;
SELECT privrisk.drop_hierarchy('sbi_zip'), privrisk.drop_hierarchy('sbi_age');
SELECT count(*) AS budgets_left FROM privrisk.budget;
