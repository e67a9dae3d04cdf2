CREATE OR REPLACE FUNCTION privrisk.alter_hierarchy_owner(name text, new_owner regrole) RETURNS void
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_alter_hierarchy_owner';

CREATE OR REPLACE FUNCTION privrisk.consistent(hierarchy text, a text, b text) RETURNS boolean LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_consistent';

CREATE OR REPLACE FUNCTION privrisk.date_hierarchy(name text, replace boolean DEFAULT false) RETURNS integer
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_date_hierarchy';

CREATE OR REPLACE FUNCTION privrisk.drop_hierarchy(name text) RETURNS void
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_drop_hierarchy';

CREATE OR REPLACE FUNCTION privrisk.generalize(hierarchy text, value text, level integer) RETURNS text LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_generalize';

CREATE OR REPLACE FUNCTION privrisk.generalizes(hierarchy text, general text, specific text) RETURNS boolean LANGUAGE c STABLE PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_generalizes';

CREATE OR REPLACE FUNCTION privrisk.hierarchy_changed() RETURNS trigger
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_hierarchy_changed';

CREATE OR REPLACE FUNCTION privrisk.hierarchy_height(hierarchy text) RETURNS integer LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_hierarchy_height';

CREATE OR REPLACE FUNCTION privrisk.interval_hierarchy(name text, lo numeric, hi numeric, widths integer[], replace boolean DEFAULT false) RETURNS integer
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_interval_hierarchy';

CREATE OR REPLACE FUNCTION privrisk.load_hierarchy(name text, csv text, delimiter text DEFAULT ';'::text, replace boolean DEFAULT false) RETURNS integer
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_load_hierarchy';

CREATE OR REPLACE FUNCTION privrisk.prefix_hierarchy(name text, max_len integer, replace boolean DEFAULT false) RETURNS integer
    LANGUAGE c
    AS 'MODULE_PATHNAME', 'privrisk_prefix_hierarchy';

CREATE OR REPLACE FUNCTION privrisk.pin_hierarchy(hierarchy text) RETURNS privrisk.pinned_hierarchy LANGUAGE c STABLE STRICT PARALLEL SAFE AS 'MODULE_PATHNAME', 'privrisk_pin_hierarchy';
