CREATE EVENT TRIGGER privrisk_forget_dropped_budgets ON sql_drop
    EXECUTE FUNCTION privrisk.forget_dropped_budgets();
