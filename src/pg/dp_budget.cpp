#include "dp_budget.hpp"

#include <cmath>

#include "args.hpp"
#include "error.hpp"
#include "source_columns.hpp"
#include "spi.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "miscadmin.h"
#include "utils/syscache.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace {

SpiArg float8_arg(double v) { return SpiArg{FLOAT8OID, Float8GetDatum(v), false}; }

// Runs f() as the owner of privrisk.budget. On an error the transaction (or
// subtransaction) abort restores the caller's identity.
template <typename F>
void as_budget_owner(F&& f) {
    Oid owner = pg_call([] {
        Oid relid = get_relname_relid("budget", get_namespace_oid("privrisk", false));
        HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
        if (!HeapTupleIsValid(tuple)) elog(ERROR, "privrisk.budget is missing");
        Oid o = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relowner;
        ReleaseSysCache(tuple);
        return o;
    });
    Oid saved_user;
    int saved_context;
    pg_call([&] {
        GetUserIdAndSecContext(&saved_user, &saved_context);
        SetUserIdAndSecContext(owner, saved_context | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
    });
    f();
    pg_call([&] { SetUserIdAndSecContext(saved_user, saved_context); });
}

// Sums may exceed a budget by rounding only.
bool over(double spent, double budget) { return spent > budget * (1 + 1e-12) + 1e-300; }

}  // namespace

namespace privrisk::pg {

void spend_budget(Oid relid, const Spend& spend) {
    const std::string name = source_relation(relid).name;
    const char* caller = pg_call([] { return GetUserNameFromId(GetUserId(), false); });
    as_budget_owner([&] {
        Spi spi;
        uint64 found = spi.run(
            "UPDATE privrisk.budget SET spent_epsilon = spent_epsilon + $2, spent_delta = spent_delta + $3 "
            "WHERE relation = $1 RETURNING epsilon, delta, spent_epsilon, spent_delta",
            {oid_arg(REGCLASSOID, relid), float8_arg(spend.epsilon), float8_arg(spend.delta)}, false);
        if (found == 0)
            fail(ErrorKind::UndefinedObject, "relation " + quote_value(name) +
                                                 " has no privacy budget: its owner sets one with privrisk.set_budget");
        double epsilon = spi.float8(0, 1), delta = spi.float8(0, 2);
        double spent_epsilon = spi.float8(0, 3), spent_delta = spi.float8(0, 4);
        if (over(spent_epsilon, epsilon) || over(spent_delta, delta))
            fail(ErrorKind::InvalidParameter,
                 "the release would overspend the privacy budget of " + quote_value(name) + ": it asks for epsilon " +
                     number_text(spend.epsilon) + ", delta " + number_text(spend.delta) + "; left: epsilon " +
                     number_text(std::max(0.0, epsilon - (spent_epsilon - spend.epsilon))) + ", delta " +
                     number_text(std::max(0.0, delta - (spent_delta - spend.delta))) + "; nothing was released");
        spi.run("INSERT INTO privrisk.budget_ledger(relation, spent_by, epsilon, delta, mechanism, parameters, private) "
                "VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7)",
                {oid_arg(REGCLASSOID, relid), text_arg(caller), float8_arg(spend.epsilon), float8_arg(spend.delta),
                 text_arg(spend.mechanism), text_arg(spend.parameters), SpiArg{BOOLOID, BoolGetDatum(!spend.seeded), false}},
                false);
        spi.finish();
    });
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
    if (!(delta >= 0 && delta < 1)) fail(ErrorKind::InvalidParameter, "delta must be in [0, 1), got " + number_text(delta));
    if (!pg_call([&] { return pg_class_ownercheck(relid, GetUserId()); }))
        fail(ErrorKind::PermissionDenied, "only the owner of " + quote_value(name) + " may set its privacy budget");
    const char* caller = pg_call([] { return GetUserNameFromId(GetUserId(), false); });
    as_budget_owner([&] {
        Spi spi;
        if (spi.run("SELECT spent_epsilon, spent_delta FROM privrisk.budget WHERE relation = $1 FOR UPDATE",
                    {oid_arg(REGCLASSOID, relid)}, false) > 0) {
            double spent_epsilon = spi.float8(0, 1), spent_delta = spi.float8(0, 2);
            if (over(spent_epsilon, epsilon) || over(spent_delta, delta))
                fail(ErrorKind::InvalidParameter, "the budget of " + quote_value(name) + " cannot go below what was spent: epsilon " +
                                                      number_text(spent_epsilon) + ", delta " + number_text(spent_delta));
        }
        spi.run("INSERT INTO privrisk.budget(relation, epsilon, delta, set_by) VALUES ($1, $2, $3, $4) "
                "ON CONFLICT (relation) DO UPDATE SET epsilon = EXCLUDED.epsilon, delta = EXCLUDED.delta, "
                "set_by = EXCLUDED.set_by, set_at = now()",
                {oid_arg(REGCLASSOID, relid), float8_arg(epsilon), float8_arg(delta), text_arg(caller)}, false);
        spi.finish();
    });
    PG_RETURN_VOID();
}
