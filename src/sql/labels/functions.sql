CREATE OR REPLACE FUNCTION privrisk.column_labels(source regclass) RETURNS TABLE(column_name name, role text, hierarchy text)
    LANGUAGE c STABLE STRICT PARALLEL SAFE ROWS 10 AS 'MODULE_PATHNAME', 'privrisk_column_labels';

CREATE OR REPLACE FUNCTION privrisk.labelled_arguments(source regclass, quasi_identifiers text[], hierarchies text[], sensitive text, caller text, OUT quasi_identifiers text[], OUT hierarchies text[], OUT sensitive text) RETURNS record
    LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_labelled_arguments';

CREATE OR REPLACE FUNCTION privrisk.load_label_provider() RETURNS event_trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'privrisk_load_label_provider';
