-- A row that reaches the catalog other than through create_profile is a restored dump's. pg_dump
-- writes its owner (regrole) as the role's name, or as a bare number once the role was dropped; a
-- number may be some other role of the restoring cluster. So the owner must be a role of the name
-- recorded with the profile, else the profile is orphaned (owner NULL), never handed to a stranger.
CREATE OR REPLACE FUNCTION privrisk.risk_profile_restored() RETURNS trigger
    LANGUAGE plpgsql
    SET search_path TO 'pg_catalog', 'pg_temp'
    AS $$
BEGIN
    IF NEW.owner IS NOT NULL
       AND NOT EXISTS (SELECT 1 FROM pg_roles r WHERE r.oid = NEW.owner::oid AND r.rolname = NEW.owner_name) THEN
        NEW.owner := NULL;
    END IF;
    RETURN NEW;
END $$;
