COMMENT ON TYPE privrisk.hist IS 'counts per sensitive value of one equivalence class; NULL counts as ⊥';

COMMENT ON AGGREGATE privrisk.class_tally(text, VARIADIC "any") IS 'internal: the classes of its key arguments with the counts of the sensitive value, in privrisk''s byte form (read by audit over parallel workers and shards)';
COMMENT ON AGGREGATE privrisk.tuple_tally(VARIADIC "any") IS 'internal: the distinct tuples of its arguments with their counts, in privrisk''s byte form (read by match_counts)';


SET default_tablespace = '';

SET default_table_access_method = heap;

COMMENT ON FUNCTION privrisk.hist_in(cstring) IS 'internal: I/O function of type privrisk.hist';
COMMENT ON FUNCTION privrisk.hist_out(privrisk.hist) IS 'internal: I/O function of type privrisk.hist';
COMMENT ON FUNCTION privrisk.hist_recv(internal) IS 'internal: I/O function of type privrisk.hist';
COMMENT ON FUNCTION privrisk.hist_send(privrisk.hist) IS 'internal: I/O function of type privrisk.hist';
COMMENT ON FUNCTION privrisk.hist_distinct(privrisk.hist) IS 'the number of distinct sensitive values in a class histogram; values';
COMMENT ON FUNCTION privrisk.hist_size(privrisk.hist) IS 'the number of rows a class histogram counts; rows';
COMMENT ON AGGREGATE privrisk.hist(*) IS 'the class histogram: each sensitive value with its count (rows); hist() counts rows only';
COMMENT ON AGGREGATE privrisk.hist(anyelement) IS 'the class histogram: each sensitive value with its count (rows); hist() counts rows only';
COMMENT ON AGGREGATE privrisk.hist(character) IS 'the class histogram: each sensitive value with its count (rows); hist() counts rows only';
COMMENT ON AGGREGATE privrisk.hist(name) IS 'the class histogram: each sensitive value with its count (rows); hist() counts rows only';
COMMENT ON AGGREGATE privrisk.hist(text) IS 'the class histogram: each sensitive value with its count (rows); hist() counts rows only';
COMMENT ON AGGREGATE privrisk.hist(character varying) IS 'the class histogram: each sensitive value with its count (rows); hist() counts rows only';
COMMENT ON AGGREGATE privrisk.hist_merge(privrisk.hist) IS 'merges class histograms by adding their counts (a class from its parts)';
COMMENT ON FUNCTION privrisk.hist_combine(internal,internal) IS 'internal: combine function of aggregate hist, hist_merge';
COMMENT ON FUNCTION privrisk.hist_deserialize(bytea,internal) IS 'internal: deserialization function of aggregate hist, hist_merge';
COMMENT ON FUNCTION privrisk.hist_final(internal) IS 'internal: final function of aggregate hist, hist_merge';
COMMENT ON FUNCTION privrisk.hist_merge_transition(internal,privrisk.hist) IS 'internal: transition function of aggregate hist_merge';
COMMENT ON FUNCTION privrisk.hist_serialize(internal) IS 'internal: serialization function of aggregate hist, hist_merge';
COMMENT ON FUNCTION privrisk.hist_transition(internal,anyelement) IS 'internal: transition function of aggregate hist';
COMMENT ON FUNCTION privrisk.hist_transition(internal,character) IS 'internal: transition function of aggregate hist';
COMMENT ON FUNCTION privrisk.hist_transition(internal,name) IS 'internal: transition function of aggregate hist';
COMMENT ON FUNCTION privrisk.hist_transition(internal,text) IS 'internal: transition function of aggregate hist';
COMMENT ON FUNCTION privrisk.hist_transition(internal,character varying) IS 'internal: transition function of aggregate hist';
COMMENT ON FUNCTION privrisk.hist_transition_star(internal) IS 'internal: transition function of aggregate hist';
COMMENT ON FUNCTION privrisk.class_tally_combine(internal,internal) IS 'internal: combine function of aggregate class_tally';
COMMENT ON FUNCTION privrisk.class_tally_deserialize(bytea,internal) IS 'internal: deserialization function of aggregate class_tally';
COMMENT ON FUNCTION privrisk.class_tally_final(internal) IS 'internal: final function of aggregate class_tally';
COMMENT ON FUNCTION privrisk.class_tally_serialize(internal) IS 'internal: serialization function of aggregate class_tally';
COMMENT ON FUNCTION privrisk.class_tally_transition(internal,text,"any") IS 'internal: transition function of aggregate class_tally';
COMMENT ON FUNCTION privrisk.tuple_tally_combine(internal,internal) IS 'internal: combine function of aggregate tuple_tally';
COMMENT ON FUNCTION privrisk.tuple_tally_deserialize(bytea,internal) IS 'internal: deserialization function of aggregate tuple_tally';
COMMENT ON FUNCTION privrisk.tuple_tally_final(internal) IS 'internal: final function of aggregate tuple_tally';
COMMENT ON FUNCTION privrisk.tuple_tally_serialize(internal) IS 'internal: serialization function of aggregate tuple_tally';
COMMENT ON FUNCTION privrisk.tuple_tally_transition(internal,"any") IS 'internal: transition function of aggregate tuple_tally';
COMMENT ON FUNCTION privrisk.classes(regclass,text[],text[],integer[],text) IS 'the release''s equivalence classes: one row per class, its generalized quasi-identifiers as text and the privrisk.hist of the sensitive column (of the rows without one); over foreign partitions, grouped on each shard and merged here';
COMMENT ON FUNCTION privrisk.classes_sql(regclass,text[],text[],integer[],text) IS 'the query privrisk.classes() runs (per shard over foreign partitions), for EXPLAIN';
