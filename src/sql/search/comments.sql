
COMMENT ON FUNCTION privrisk.run_search(regclass,text[],text[],text,jsonb,text,boolean,text) IS 'internal: runs search() and lattice(): checks the options and calls the C search';
COMMENT ON FUNCTION privrisk.apply_generalization(text,jsonb) IS 'adds to a policy one gen rule per column of a search() result''s node; returns the number of rules added';
COMMENT ON FUNCTION privrisk.lattice(regclass,text[],text[],text,jsonb,text,text) IS 'every node of the generalization lattice with whether it meets the constraints (or a risk profile''s thresholds), its utility, height, suppressed rows and measures; omitted columns come from the column labels';
COMMENT ON FUNCTION privrisk.search(regclass,text[],text[],text,jsonb,text,text) IS 'the most useful release that meets the constraints (or a risk profile''s thresholds, then with its verdict): the optimal node of the generalization lattice with its measures (jsonb); omitted columns come from the column labels';
COMMENT ON FUNCTION privrisk.search_lattice(regclass,text[],text[],text,jsonb,text,boolean) IS 'internal: the C half of search() and lattice(): reads the constraints and the source once and searches the lattice';
