-- The schema is created by CREATE EXTENSION (privrisk.control: schema = privrisk).
GRANT USAGE ON SCHEMA privrisk TO PUBLIC;
