COMMENT ON TYPE privrisk.hist IS 'counts per sensitive value of one equivalence class; NULL counts as ⊥';

COMMENT ON AGGREGATE privrisk.tuple_tally(VARIADIC "any") IS 'internal: the distinct tuples of its arguments with their counts, in privrisk''s byte form (read by match_counts)';


SET default_tablespace = '';

SET default_table_access_method = heap;
