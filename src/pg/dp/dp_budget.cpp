#include "dp/dp_budget.hpp"

#include <cmath>

#include "common/args.hpp"
#include "common/error.hpp"
#include "common/source_columns.hpp"
#include "common/spi.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "utils/guc.h"
#include "utils/syscache.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace {

SpiArg float8_arg(double v) { return SpiArg{FLOAT8OID, Float8GetDatum(v), false}; }

// Runs f() as the owner of privrisk.budget under search_path pg_catalog,
// pg_temp (its SQL is qualified as well). On an error the transaction (or
// subtransaction) abort restores the caller's identity and search_path.
template <typename F>
void as_budget_owner(F&& f) {
    const Oid owner = budget_owner();
    Oid saved_user;
    int saved_context;
    int nest = pg_call([&] {
        GetUserIdAndSecContext(&saved_user, &saved_context);
        SetUserIdAndSecContext(owner, saved_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
        int level = NewGUCNestLevel();
        (void)set_config_option("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_SESSION, GUC_ACTION_SAVE, true,
                                0, false);
        return level;
    });
    f();
    pg_call([&] {
        AtEOXact_GUC(true, nest);
        SetUserIdAndSecContext(saved_user, saved_context);
    });
}

// Sums may exceed a budget by rounding only.
bool over(double spent, double budget) { return spent > budget * (1 + 1e-12) + 1e-300; }

const char* relkind_name(char kind) {
    switch (kind) {
        case RELKIND_VIEW:
            return "a view";
        case RELKIND_SEQUENCE:
            return "a sequence";
        case RELKIND_FOREIGN_TABLE:
            return "a foreign table";
        case RELKIND_COMPOSITE_TYPE:
            return "a composite type";
        case RELKIND_INDEX:
            return "an index";
        case RELKIND_PARTITIONED_INDEX:
            return "a partitioned index";
        case RELKIND_TOASTVALUE:
            return "a TOAST table";
    }
    return "not a table";
}

[[noreturn]] void raise(int sqlstate, const std::string& message) {
    const char* text = message.c_str();
    pg_call([&] { ereport(ERROR, (errcode(sqlstate), errmsg("%s", text))); });
    fail(ErrorKind::Internal, message);  // not reached
}

}  // namespace

namespace privrisk::pg {

Oid budget_owner() {
    return pg_call([] {
        Oid relid = get_relname_relid("budget", get_namespace_oid("privrisk", false));
        HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
        if (!HeapTupleIsValid(tuple)) elog(ERROR, "privrisk.budget is missing");
        Oid o = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relowner;
        ReleaseSysCache(tuple);
        return o;
    });
}

void spend_budget(Oid relid, const Spend& spend) {
    const std::string name = source_relation(relid).name;
    // The worker would wait for this transaction's row lock while this
    // transaction waits for the worker; and it could not see the change anyway.
    bool uncommitted = false;
    as_budget_owner([&] {
        Spi spi;
        if (spi.run("SELECT (xmin::pg_catalog.text)::pg_catalog.int8 FROM privrisk.budget "
                    "WHERE relation OPERATOR(pg_catalog.=) $1",
                    {oid_arg(REGCLASSOID, relid)}, true) > 0) {
            const TransactionId xmin = static_cast<TransactionId>(spi.int8(0, 1));
            uncommitted = pg_call([&] { return TransactionIdIsCurrentTransactionId(xmin); });
        }
        spi.finish();
    });
    if (uncommitted)
        raise(
            ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
            "the budget of " + quote_value(name) +
                " is not committed yet: a release spends in a transaction of its "
                "own, which cannot see this transaction's set_budget; commit it first (nothing was released or spent)");

    SpendRequest request{relid, budget_owner(), &spend, pg_call([] { return GetUserNameFromId(GetUserId(), false); })};
    const SpendOutcome r = run_budget_worker(request);
    switch (r.status) {
        case SpendOutcome::Spent:
            return;
        case SpendOutcome::NoBudget:
            fail(ErrorKind::UndefinedObject, "relation " + quote_value(name) +
                                                 " has no privacy budget: its owner sets one with privrisk.set_budget");
        case SpendOutcome::Overspent:
            fail(ErrorKind::InvalidParameter,
                 "the release would overspend the privacy budget of " + quote_value(name) + ": it asks for epsilon " +
                     number_text(spend.epsilon) + ", delta " + number_text(spend.delta) + "; left: epsilon " +
                     number_text(std::max(0.0, r.epsilon - r.spent_epsilon)) + ", delta " +
                     number_text(std::max(0.0, r.delta - r.spent_delta)) + "; nothing was released");
        case SpendOutcome::Failed:
            raise(r.sqlstate ? r.sqlstate : ERRCODE_INTERNAL_ERROR, "the privacy budget of " + quote_value(name) +
                                                                        " could not be spent: " + r.message +
                                                                        "; nothing was released or spent");
        case SpendOutcome::NoResult:
            break;
    }
    fail(ErrorKind::Internal,
         "the privacy budget worker stopped without a result (see the server log); nothing was "
         "released, the budget of " +
             quote_value(name) + " may have been spent");
}

}  // namespace privrisk::pg

// set_budget(dataset regclass, epsilon, delta): the relation's owner sets (or
// changes) its budget; it cannot go below what was already spent.
PRIVRISK_FUNCTION(privrisk_set_budget) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "dataset must not be NULL");
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2)) fail(ErrorKind::InvalidParameter, "epsilon and delta must not be NULL");
    Oid relid = PG_GETARG_OID(0);
    double epsilon = PG_GETARG_FLOAT8(1), delta = PG_GETARG_FLOAT8(2);
    const std::string name = source_relation(relid).name;
    if (!(epsilon > 0) || !std::isfinite(epsilon))
        fail(ErrorKind::InvalidParameter, "epsilon must be positive and finite, got " + number_text(epsilon));
    if (!(delta >= 0 && delta < 1))
        fail(ErrorKind::InvalidParameter, "delta must be in [0, 1), got " + number_text(delta));
    // Only what dp_release reads; the sql_drop event trigger removes the budget
    // with its relation, and no event marks the end of a temporary table.
    const char kind = pg_call([&] { return get_rel_relkind(relid); });
    if (kind != RELKIND_RELATION && kind != RELKIND_PARTITIONED_TABLE && kind != RELKIND_MATVIEW)
        fail(ErrorKind::InvalidParameter,
             "a privacy budget is set on a table, partitioned table or materialized view; " + quote_value(name) +
                 " is " + relkind_name(kind));
    if (pg_call([&] { return get_rel_persistence(relid); }) == RELPERSISTENCE_TEMP)
        fail(ErrorKind::InvalidParameter, quote_value(name) +
                                              " is a temporary table: its budget would outlive it, and pass "
                                              "to a later relation with the same OID");
    if (!pg_call([&] { return pg_class_ownercheck(relid, GetUserId()); }))
        fail(ErrorKind::PermissionDenied, "only the owner of " + quote_value(name) + " may set its privacy budget");
    const char* caller = pg_call([] { return GetUserNameFromId(GetUserId(), false); });
    as_budget_owner([&] {
        Spi spi;
        if (spi.run("SELECT spent_epsilon, spent_delta FROM privrisk.budget WHERE relation OPERATOR(pg_catalog.=) $1 "
                    "FOR UPDATE",
                    {oid_arg(REGCLASSOID, relid)}, false) > 0) {
            double spent_epsilon = spi.float8(0, 1), spent_delta = spi.float8(0, 2);
            if (over(spent_epsilon, epsilon) || over(spent_delta, delta))
                fail(ErrorKind::InvalidParameter,
                     "the budget of " + quote_value(name) + " cannot go below what was spent: epsilon " +
                         number_text(spent_epsilon) + ", delta " + number_text(spent_delta));
        }
        spi.run(
            "INSERT INTO privrisk.budget(relation, epsilon, delta, set_by) VALUES ($1, $2, $3, $4::pg_catalog.name) "
            "ON CONFLICT (relation) DO UPDATE SET epsilon = EXCLUDED.epsilon, delta = EXCLUDED.delta, "
            "set_by = EXCLUDED.set_by, set_at = pg_catalog.now()",
            {oid_arg(REGCLASSOID, relid), float8_arg(epsilon), float8_arg(delta), text_arg(caller)}, false);
        spi.finish();
    });
    PG_RETURN_VOID();
}
