CREATE TRIGGER hierarchy_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON privrisk.hierarchy FOR EACH STATEMENT EXECUTE FUNCTION privrisk.hierarchy_changed();

CREATE TRIGGER hierarchy_changed AFTER INSERT OR DELETE OR UPDATE OR TRUNCATE ON privrisk.hierarchy_leaf FOR EACH STATEMENT EXECUTE FUNCTION privrisk.hierarchy_changed();
