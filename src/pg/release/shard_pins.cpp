// The coordinator's pin on a shard (docs/scale-out.md): the release scan takes
// release_is_pinned(…) out of its quals and checks the pin before its first
// row; a planner hook refuses any plan that would evaluate the pin elsewhere,
// and the function itself always fails.
#include "release/shard_pins.hpp"

#include <algorithm>
#include <cstring>

#include "common/args.hpp"
#include "common/error.hpp"
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
#include "parser/parse_func.h"
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
            Oid type = OidIsValid(schema) ? GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("pinned_policy"),
                                                            ObjectIdGetDatum(schema))
                                          : InvalidOid;
            if (!OidIsValid(type)) return InvalidOid;
            Oid argtypes[2] = {ANYELEMENTOID, type};
            List* name = list_make2(makeString(pstrdup("privrisk")), makeString(pstrdup("release_is_pinned")));
            return LookupFuncName(name, 2, argtypes, true);
        });
    } catch (...) {
        pin_function_known = false;
        throw;
    }
    return pin_function;
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
            Node* clause = reinterpret_cast<Node*>(info->clause);
            Node* pin = IsA(clause, FuncExpr) && reinterpret_cast<FuncExpr*>(clause)->funcid == function
                            ? reinterpret_cast<Node*>(lsecond(reinterpret_cast<FuncExpr*>(clause)->args))
                            : nullptr;
            if (pin && IsA(pin, Const) && !reinterpret_cast<Const*>(pin)->constisnull)
                pins = lappend(pins, makeString(TextDatumGetCString(reinterpret_cast<Const*>(pin)->constvalue)));
            else
                others = lappend(others, info);
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
    if (IsA(node, FuncExpr) && reinterpret_cast<FuncExpr*>(node)->funcid == search->function) {
        Node* pin = reinterpret_cast<Node*>(lsecond(reinterpret_cast<FuncExpr*>(node)->args));
        search->pin = IsA(pin, Const) && !reinterpret_cast<Const*>(pin)->constisnull ? reinterpret_cast<Const*>(pin) : nullptr;
        return true;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(find_pin)), context);
}

// A plan node, or one below it, that evaluates release_is_pinned on its rows.
// (A ForeignScan's shipped quals are not evaluated here: they are skipped.)
bool plan_has_pin(Plan* plan, PinSearch* search) {
    if (!plan) return false;
    auto found = [&](void* n) { return find_pin(static_cast<Node*>(n), search); };
    if (found(plan->qual) || found(plan->targetlist)) return true;
    auto any = [&](List* plans) {
        ListCell* lc;
        foreach (lc, plans)
            if (plan_has_pin(static_cast<Plan*>(lfirst(lc)), search)) return true;
        return false;
    };
    switch (nodeTag(plan)) {
        case T_Result:
            if (found(reinterpret_cast<Result*>(plan)->resconstantqual)) return true;
            break;
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
            if (plan_has_pin(reinterpret_cast<SubqueryScan*>(plan)->subplan, search)) return true;
            break;
        case T_CustomScan:
            if (any(reinterpret_cast<CustomScan*>(plan)->custom_plans) ||
                found(reinterpret_cast<CustomScan*>(plan)->custom_exprs))
                return true;
            break;
        case T_FunctionScan:
            if (found(reinterpret_cast<FunctionScan*>(plan)->functions)) return true;
            break;
        case T_ValuesScan:
            if (found(reinterpret_cast<ValuesScan*>(plan)->values_lists)) return true;
            break;
        case T_TableFuncScan:
            if (found(reinterpret_cast<TableFuncScan*>(plan)->tablefunc)) return true;
            break;
        case T_IndexScan: {
            auto* scan = reinterpret_cast<IndexScan*>(plan);
            if (found(scan->indexqual) || found(scan->indexqualorig) || found(scan->indexorderby)) return true;
            break;
        }
        case T_IndexOnlyScan: {
            auto* scan = reinterpret_cast<IndexOnlyScan*>(plan);
            if (found(scan->indexqual) || found(scan->recheckqual) || found(scan->indexorderby)) return true;
            break;
        }
        case T_BitmapIndexScan:
            if (found(reinterpret_cast<BitmapIndexScan*>(plan)->indexqual)) return true;
            break;
        case T_BitmapHeapScan:
            if (found(reinterpret_cast<BitmapHeapScan*>(plan)->bitmapqualorig)) return true;
            break;
        case T_TidScan:
            if (found(reinterpret_cast<TidScan*>(plan)->tidquals)) return true;
            break;
        case T_TidRangeScan:
            if (found(reinterpret_cast<TidRangeScan*>(plan)->tidrangequals)) return true;
            break;
        case T_Memoize:
            if (found(reinterpret_cast<Memoize*>(plan)->param_exprs)) return true;
            break;
        case T_WindowAgg:
            if (found(reinterpret_cast<WindowAgg*>(plan)->runCondition)) return true;
            break;
        case T_Limit:
            if (found(reinterpret_cast<Limit*>(plan)->limitOffset) || found(reinterpret_cast<Limit*>(plan)->limitCount))
                return true;
            break;
        case T_Hash:
            if (found(reinterpret_cast<Hash*>(plan)->hashkeys)) return true;
            break;
        case T_ModifyTable: {
            auto* modify = reinterpret_cast<ModifyTable*>(plan);
            if (found(modify->onConflictWhere) || found(modify->onConflictSet) || found(modify->returningLists) ||
                found(modify->withCheckOptionLists))
                return true;
            break;
        }
        case T_HashJoin:
            if (found(reinterpret_cast<HashJoin*>(plan)->hashclauses)) return true;
            if (found(reinterpret_cast<Join*>(plan)->joinqual)) return true;
            break;
        case T_MergeJoin:
            if (found(reinterpret_cast<MergeJoin*>(plan)->mergeclauses)) return true;
            if (found(reinterpret_cast<Join*>(plan)->joinqual)) return true;
            break;
        case T_NestLoop:
            if (found(reinterpret_cast<Join*>(plan)->joinqual)) return true;
            break;
        default:
            break;
    }
    return plan_has_pin(plan->lefttree, search) || plan_has_pin(plan->righttree, search);
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
        bool found = pg_call([&] {
            bool any = plan_has_pin(stmt->planTree, &search);
            ListCell* lc;
            foreach (lc, stmt->subplans)
                any = any || plan_has_pin(static_cast<Plan*>(lfirst(lc)), &search);
            return any;
        });
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

// A scan in `plan` that reads something besides `policy`'s release: a function
// or table function in FROM, or the release scan of another policy (or of a
// policy given as a parameter). PostgreSQL-style (may raise an ERROR).
const char* plan_scan_other(Plan* plan, const char* policy) {
    if (!plan) return nullptr;
    auto first = [&](List* plans) -> const char* {
        ListCell* lc;
        foreach (lc, plans)
            if (const char* other = plan_scan_other(static_cast<Plan*>(lfirst(lc)), policy)) return other;
        return nullptr;
    };
    const char* other = nullptr;
    switch (nodeTag(plan)) {
        case T_FunctionScan:
        case T_TableFuncScan:
            return "a function in FROM";
        case T_CustomScan: {
            auto* scan = reinterpret_cast<CustomScan*>(plan);
            if (strcmp(scan->methods->CustomName, kReleaseScanName) == 0) {
                Node* arg = static_cast<Node*>(linitial(scan->custom_exprs));
                if (!IsA(arg, Const) || reinterpret_cast<Const*>(arg)->constisnull ||
                    strcmp(TextDatumGetCString(reinterpret_cast<Const*>(arg)->constvalue), policy) != 0)
                    return "the release of another policy";
            }
            other = first(scan->custom_plans);
            break;
        }
        case T_Append:
            other = first(reinterpret_cast<Append*>(plan)->appendplans);
            break;
        case T_MergeAppend:
            other = first(reinterpret_cast<MergeAppend*>(plan)->mergeplans);
            break;
        case T_BitmapAnd:
            other = first(reinterpret_cast<BitmapAnd*>(plan)->bitmapplans);
            break;
        case T_BitmapOr:
            other = first(reinterpret_cast<BitmapOr*>(plan)->bitmapplans);
            break;
        case T_SubqueryScan:
            other = plan_scan_other(reinterpret_cast<SubqueryScan*>(plan)->subplan, policy);
            break;
        default:
            break;
    }
    if (!other) other = plan_scan_other(plan->lefttree, policy);
    if (!other) other = plan_scan_other(plan->righttree, policy);
    return other;
}

const char* plan_reads_other(PlannedStmt* stmt, const char* policy) {
    const char* other = plan_scan_other(stmt->planTree, policy);
    ListCell* lc;
    foreach (lc, stmt->subplans)
        if (!other) other = plan_scan_other(static_cast<Plan*>(lfirst(lc)), policy);
    return other;
}

}  // namespace

void verify_pins(const Policy& policy, List* pins, PlannedStmt* stmt) {
    if (pins == NIL) return;
    // Read for a coordinator, the query reads the release and nothing else: no
    // table, no view but the policy's registered release views (the range
    // table), no function in FROM and no release scan of another policy (the plan). A view joining the release with a table or with
    // another policy's release would hand the coordinator values no rule ran on.
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
        return plan_reads_other(stmt, policy.name.c_str());
    });
    std::string digest;
    for (int i = 0; i < list_length(pins); ++i) {
        std::string text = strVal(list_nth(pins, i));
        PinnedHierarchy pin = PinnedHierarchy::parse(text, kPinnedPolicy);
        const std::string where = pin_where(pin);
        if (pin.name != policy.name)
            fail(ErrorKind::InvalidParameter, "the relation read" + where + " for policy " + quote_value(pin.name) +
                                                  " is a release of policy " + quote_value(policy.name) +
                                                  ": the foreign table must read that policy's release view");
        if (other)
            fail(ErrorKind::InvalidParameter, "the relation read" + where + " for policy " + quote_value(pin.name) +
                                                  " reads " + other +
                                                  ", not only a release view of that policy: read for a coordinator, "
                                                  "it must be a release view made by create_release_view and read nothing else");
        // The role the coordinator connects as must not read the source: this
        // scan would then report a rule's error with the value that raised it,
        // and postgres_fdw would hand that text to the coordinator's reader.
        if (reads_source(policy.source))
            fail(ErrorKind::PermissionDenied,
                 "the release of policy " + quote_value(pin.name) + where + " is read by a role that may read its "
                 "source: map the coordinator's view owner to a role that may read only the release view (its errors "
                 "then name no value)");
        if (digest.empty()) digest = policy_digest(policy, source_name(policy.source));
        if (digest != pin.digest)
            fail(ErrorKind::InvalidParameter,
                 "policy " + quote_value(pin.name) + where + " is not the one pinned (digest " + digest + " here, " +
                     pin.digest + " pinned): create the same policy, rules, hierarchies and labels on every server, "
                     "then the release view on the coordinator again");
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

