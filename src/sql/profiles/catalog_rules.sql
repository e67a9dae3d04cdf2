CREATE TRIGGER risk_profile_restored BEFORE INSERT ON privrisk.risk_profile FOR EACH ROW EXECUTE FUNCTION privrisk.risk_profile_restored();
