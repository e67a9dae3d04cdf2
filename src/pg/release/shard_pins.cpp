// The coordinator's pin on a shard (docs/scale-out.md): the release scan takes
// release_is_pinned(…) out of its quals and checks the pin before its first
// row; a planner hook refuses any plan that would evaluate the pin elsewhere,
// and the function itself always fails.
#include "release/shard_pins.hpp"

#include <algorithm>
#include <cstring>

#include "common/args.hpp"
#include "common/error.hpp"
#include "common/privrisk_function.hpp"
#include "hierarchy/pinned_hierarchy.hpp"
#include "release/policy_access.hpp"
#include "release/scan_state.hpp"
#include "release/shard_release.hpp"

extern "C" {
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "nodes/nodeFuncs.h"
#include "nodes/pathnodes.h"
#include "optimizer/planner.h"
#include "utils/inval.h"
#include "utils/syscache.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace privrisk::pg {
namespace {

// privrisk.release_is_pinned's OID (InvalidOid without the extension), looked
// up once per backend and again after any change to functions, types or
// schemas: the planner hook asks for it on every query it plans.
Oid pin_function = InvalidOid;
bool pin_function_known = false;

void forget_pin_function(Datum, int, uint32) { pin_function_known = false; }

Oid release_is_pinned_oid() {
    if (pin_function_known) return pin_function;
    static bool callbacks = false;
    // Known from here on, unless an invalidation arrives during the lookup
    // (the callback clears it) or the lookup fails.
    pin_function_known = true;
    try {
        pin_function = pg_call([&] {
            if (!callbacks) {
                CacheRegisterSyscacheCallback(PROCOID, forget_pin_function, 0);
                CacheRegisterSyscacheCallback(TYPEOID, forget_pin_function, 0);
                CacheRegisterSyscacheCallback(NAMESPACEOID, forget_pin_function, 0);
                callbacks = true;
            }
            Oid schema = get_namespace_oid("privrisk", true);
            Oid type = OidIsValid(schema) ? GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid,
                                                            CStringGetDatum("pinned_policy"), ObjectIdGetDatum(schema))
                                          : InvalidOid;
            if (!OidIsValid(type)) return InvalidOid;
            Oid argtypes[2] = {ANYELEMENTOID, type};
            return privrisk_function("release_is_pinned", 2, argtypes);
        });
    } catch (...) {
        pin_function_known = false;
        throw;
    }
    return pin_function;
}

// `node` is a call of release_is_pinned (`function`, *call set); its pin, the
// second argument, when that is a non-NULL constant, else nullptr.
Const* pin_argument(Node* node, Oid function, bool* call) {
    *call = node && IsA(node, FuncExpr) && reinterpret_cast<FuncExpr*>(node)->funcid == function;
    if (!*call) return nullptr;
    Node* pin = reinterpret_cast<Node*>(lsecond(reinterpret_cast<FuncExpr*>(node)->args));
    return IsA(pin, Const) && !reinterpret_cast<Const*>(pin)->constisnull ? reinterpret_cast<Const*>(pin) : nullptr;
}

// Calls visit(node, context) on every node of `plan`, children and
// subqueries' plans included, until it returns true. PostgreSQL-style.
bool any_plan_node(Plan* plan, bool (*visit)(Plan*, void*), void* context) {
    if (!plan) return false;
    if (visit(plan, context)) return true;
    auto any = [&](List* plans) {
        ListCell* lc;
        foreach (lc, plans)
            if (any_plan_node(static_cast<Plan*>(lfirst(lc)), visit, context)) return true;
        return false;
    };
    switch (nodeTag(plan)) {
        case T_Append:
            if (any(reinterpret_cast<Append*>(plan)->appendplans)) return true;
            break;
        case T_MergeAppend:
            if (any(reinterpret_cast<MergeAppend*>(plan)->mergeplans)) return true;
            break;
        case T_BitmapAnd:
            if (any(reinterpret_cast<BitmapAnd*>(plan)->bitmapplans)) return true;
            break;
        case T_BitmapOr:
            if (any(reinterpret_cast<BitmapOr*>(plan)->bitmapplans)) return true;
            break;
        case T_SubqueryScan:
            if (any_plan_node(reinterpret_cast<SubqueryScan*>(plan)->subplan, visit, context)) return true;
            break;
        case T_CustomScan:
            if (any(reinterpret_cast<CustomScan*>(plan)->custom_plans)) return true;
            break;
        default:
            break;
    }
    return any_plan_node(plan->lefttree, visit, context) || any_plan_node(plan->righttree, visit, context);
}

// The same over a statement: its plan and its subplans (CTEs, SubPlans).
bool any_statement_node(PlannedStmt* stmt, bool (*visit)(Plan*, void*), void* context) {
    if (any_plan_node(stmt->planTree, visit, context)) return true;
    ListCell* lc;
    foreach (lc, stmt->subplans)
        if (any_plan_node(static_cast<Plan*>(lfirst(lc)), visit, context)) return true;
    return false;
}

}  // namespace

List* take_pins(List** restrictinfos) {
    Oid function = release_is_pinned_oid();
    if (!OidIsValid(function)) return NIL;
    return pg_call([&] {
        List *pins = NIL, *others = NIL;
        ListCell* lc;
        foreach (lc, *restrictinfos) {
            RestrictInfo* info = lfirst_node(RestrictInfo, lc);
            bool call;
            if (Const* pin = pin_argument(reinterpret_cast<Node*>(info->clause), function, &call))
                pins = lappend(pins, makeString(TextDatumGetCString(pin->constvalue)));
            else others = lappend(others, info);
        }
        *restrictinfos = others;
        return pins;
    });
}

void fail_unbound_pin(const std::string& text) {
    PinnedHierarchy pin = PinnedHierarchy::parse(text, kPinnedPolicy);
    const std::string where = pin_where(pin);
    Policy policy;
    try {
        policy = load_readable_policy(pin.name);
    } catch (const Error& e) {
        fail(e.kind(), std::string(e.what()) + where);
    }
    // Here rather than on the shard (privrisk not in the server's extensions
    // option): this server's policy is the coordinator's.
    if (has_foreign_partitions(policy.source))
        fail(ErrorKind::InvalidParameter,
             "the check of policy " + quote_value(pin.name) + where +
                 " would run on this server, not on the shard: list privrisk in the server's extensions option "
                 "(ALTER SERVER … OPTIONS (ADD extensions 'privrisk')); if it is listed, the column the check rides "
                 "on has a type postgres_fdw does not ship: make the release view again");
    fail(ErrorKind::InvalidParameter,
         "the relation read" + where + " for policy " + quote_value(pin.name) +
             " is not that policy's release view, read by its own scan (a plain view, or a view around the release "
             "that keeps the check from it, such as a security_barrier view): create it with "
             "privrisk.create_release_view on the shard");
}

namespace {

// The pin of a release_is_pinned call somewhere in `node`, if any.
struct PinSearch {
    Oid function;
    Const* pin;  // plain data: the walk runs as PostgreSQL code
};

bool find_pin(Node* node, void* context) {
    if (!node) return false;
    auto* search = static_cast<PinSearch*>(context);
    bool call;
    Const* pin = pin_argument(node, search->function, &call);
    if (call) {
        search->pin = pin;
        return true;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(find_pin)), context);
}

// A plan node that evaluates release_is_pinned on its rows, in any of its
// expressions. (A ForeignScan's shipped quals are not evaluated here: skipped.)
bool node_has_pin(Plan* plan, void* context) {
    auto* search = static_cast<PinSearch*>(context);
    auto found = [&](void* n) { return find_pin(static_cast<Node*>(n), search); };
    if (found(plan->qual) || found(plan->targetlist)) return true;
    switch (nodeTag(plan)) {
        case T_Result:
            return found(reinterpret_cast<Result*>(plan)->resconstantqual);
        case T_CustomScan:
            return found(reinterpret_cast<CustomScan*>(plan)->custom_exprs);
        case T_FunctionScan:
            return found(reinterpret_cast<FunctionScan*>(plan)->functions);
        case T_ValuesScan:
            return found(reinterpret_cast<ValuesScan*>(plan)->values_lists);
        case T_TableFuncScan:
            return found(reinterpret_cast<TableFuncScan*>(plan)->tablefunc);
        case T_IndexScan: {
            auto* scan = reinterpret_cast<IndexScan*>(plan);
            return found(scan->indexqual) || found(scan->indexqualorig) || found(scan->indexorderby);
        }
        case T_IndexOnlyScan: {
            auto* scan = reinterpret_cast<IndexOnlyScan*>(plan);
            return found(scan->indexqual) || found(scan->recheckqual) || found(scan->indexorderby);
        }
        case T_BitmapIndexScan:
            return found(reinterpret_cast<BitmapIndexScan*>(plan)->indexqual);
        case T_BitmapHeapScan:
            return found(reinterpret_cast<BitmapHeapScan*>(plan)->bitmapqualorig);
        case T_TidScan:
            return found(reinterpret_cast<TidScan*>(plan)->tidquals);
        case T_TidRangeScan:
            return found(reinterpret_cast<TidRangeScan*>(plan)->tidrangequals);
        case T_Memoize:
            return found(reinterpret_cast<Memoize*>(plan)->param_exprs);
        case T_WindowAgg:
            return found(reinterpret_cast<WindowAgg*>(plan)->runCondition);
        case T_Limit:
            return found(reinterpret_cast<Limit*>(plan)->limitOffset) ||
                   found(reinterpret_cast<Limit*>(plan)->limitCount);
        case T_Hash:
            return found(reinterpret_cast<Hash*>(plan)->hashkeys);
        case T_ModifyTable: {
            auto* modify = reinterpret_cast<ModifyTable*>(plan);
            return found(modify->onConflictWhere) || found(modify->onConflictSet) || found(modify->returningLists) ||
                   found(modify->withCheckOptionLists);
        }
        case T_HashJoin:
            return found(reinterpret_cast<HashJoin*>(plan)->hashclauses) ||
                   found(reinterpret_cast<Join*>(plan)->joinqual);
        case T_MergeJoin:
            return found(reinterpret_cast<MergeJoin*>(plan)->mergeclauses) ||
                   found(reinterpret_cast<Join*>(plan)->joinqual);
        case T_NestLoop:
            return found(reinterpret_cast<Join*>(plan)->joinqual);
        default:
            return false;
    }
}

planner_hook_type previous_planner = nullptr;

// Every pin the shard's release scans took out of their quals was checked
// there; one left anywhere else in the plan would be evaluated on rows no
// release scan of its policy checked. Refused when the query is planned,
// before any row is read (so no filter of the reader's decides whether it fails).
PlannedStmt* refuse_unbound_pins(Query* parse, const char* query_string, int options, ParamListInfo params) {
    PlannedStmt* stmt = previous_planner ? previous_planner(parse, query_string, options, params)
                                         : standard_planner(parse, query_string, options, params);
    guarded([&] {
        PinSearch search{release_is_pinned_oid(), nullptr};
        if (!OidIsValid(search.function)) return;
        bool found = pg_call([&] { return any_statement_node(stmt, node_has_pin, &search); });
        if (!found) return;
        if (!search.pin) fail(ErrorKind::InvalidParameter, "privrisk.release_is_pinned: the pin must be a constant");
        fail_unbound_pin(std::string(pg_call([&] { return TextDatumGetCString(search.pin->constvalue); })));
    });
    return stmt;
}

}  // namespace

void register_pin_check() {
    previous_planner = planner_hook;
    planner_hook = refuse_unbound_pins;
}

namespace {

// schema.table, as written in a digest.
std::string source_name(Oid relid) {
    return std::string(pg_call([&] { return get_namespace_name(get_rel_namespace(relid)); })) + "." +
           pg_call([&] { return get_rel_name(relid); });
}

// A scan that reads something besides a policy's release: a function or table
// function in FROM, or the release scan of another policy (or of a policy given
// as a parameter). `what` names it. PostgreSQL-style (may raise an ERROR).
struct OtherScan {
    const char* policy;  // its key
    const char* base;    // its name alone (a view made before names were per schema)
    const char* what;
};

bool node_reads_other(Plan* plan, void* context) {
    auto* search = static_cast<OtherScan*>(context);
    if (IsA(plan, FunctionScan) || IsA(plan, TableFuncScan)) {
        search->what = "a function in FROM";
    } else if (IsA(plan, CustomScan) &&
               strcmp(reinterpret_cast<CustomScan*>(plan)->methods->CustomName, kReleaseScanName) == 0) {
        Node* arg = static_cast<Node*>(linitial(reinterpret_cast<CustomScan*>(plan)->custom_exprs));
        const char* named = IsA(arg, Const) && !reinterpret_cast<Const*>(arg)->constisnull
                                ? TextDatumGetCString(reinterpret_cast<Const*>(arg)->constvalue)
                                : nullptr;
        if (!named || (strcmp(named, search->policy) != 0 && strcmp(named, search->base) != 0))
            search->what = "the release of another policy";
    }
    return search->what != nullptr;
}

}  // namespace

void verify_pins(const Policy& policy, List* pins, PlannedStmt* stmt) {
    if (pins == NIL) return;
    // Read for a coordinator, the query reads the release and nothing else: no
    // table, no view but the policy's registered release views (the range
    // table), no function in FROM and no release scan of another policy (the
    // plan). A view joining the release with a table or with another policy's
    // release would hand the coordinator values no rule ran on.
    std::vector<Oid> views = release_views_of(policy.name);
    const char* other = pg_call([&]() -> const char* {
        ListCell* lc;
        foreach (lc, stmt->rtable) {
            RangeTblEntry* rte = lfirst_node(RangeTblEntry, lc);
            if (rte->rtekind == RTE_RELATION) {
                bool registered = get_rel_relkind(rte->relid) == RELKIND_VIEW &&
                                  std::find(views.begin(), views.end(), rte->relid) != views.end();
                if (!registered) {
                    const char* relname = get_rel_name(rte->relid);
                    return relname ? psprintf("relation \"%s\"", relname) : "a dropped relation";
                }
            }
        }
        // Functions in FROM are not in the flat range table (setrefs drops them):
        // the plan's scans are checked instead.
        OtherScan search{policy.name.c_str(), policy.base_name.c_str(), nullptr};
        any_statement_node(stmt, node_reads_other, &search);
        return search.what;
    });
    std::string digest;
    for (int i = 0; i < list_length(pins); ++i) {
        std::string text = strVal(list_nth(pins, i));
        PinnedHierarchy pin = PinnedHierarchy::parse(text, kPinnedPolicy);
        const std::string where = pin_where(pin);
        if (pin.name != policy.name && pin.name != policy.base_name)
            fail(ErrorKind::InvalidParameter, "the relation read" + where + " for policy " + quote_value(pin.name) +
                                                  " is a release of policy " + quote_value(policy.name) +
                                                  ": the foreign table must read that policy's release view");
        if (other)
            fail(ErrorKind::InvalidParameter,
                 "the relation read" + where + " for policy " + quote_value(pin.name) + " reads " + other +
                     ", not only a release view of that policy: read for a coordinator, "
                     "it must be a release view made by create_release_view and read nothing else");
        // The role the coordinator connects as must not read the source: this
        // scan would then report a rule's error with the value that raised it,
        // and postgres_fdw would hand that text to the coordinator's reader.
        if (reads_source(policy.source))
            fail(ErrorKind::PermissionDenied, "the release of policy " + quote_value(pin.name) + where +
                                                  " is read by a role that may read its "
                                                  "source: map the coordinator's view owner to a role that may read "
                                                  "only the release view (its errors "
                                                  "then name no value)");
        if (digest.empty()) digest = policy_digest(policy, source_name(policy.source));
        if (digest != pin.digest)
            fail(ErrorKind::InvalidParameter,
                 "policy " + quote_value(pin.name) + where + " is not the one pinned (digest " + pin.digest +
                     "): create the same policy, rules, hierarchies and labels on every server, then the release "
                     "view on the coordinator again");  // this reader may not read the policy: not its digest here
    }
}

}  // namespace privrisk::pg

// release_is_pinned(value, pinned policy): the coordinator's pin in the query
// it sends a shard (postgres_fdw ships it: IMMUTABLE). The shard's release scan
// takes it out of its quals when it is planned and checks it before its first
// row (verify_pins); anywhere else the shard's planner refuses the query
// (refuse_unbound_pins), and evaluated it always fails: no relation but the
// policy's release, read by its own scan, passes. `value` (a column of the
// release) makes it a per-row expression postgres_fdw sends along.
PRIVRISK_FUNCTION(privrisk_release_is_pinned) {
    if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "release_is_pinned: the pinned policy must not be NULL");
    fail_unbound_pin(std::string(text_view(PG_GETARG_DATUM(1))));
    PG_RETURN_BOOL(false);
}
