// Marking release() calls with the release view that holds them. PostgreSQL 15
// keeps a view's definition, wherever the view is expanded in a query, as a
// query whose first range table entry is the view itself (the OLD placeholder,
// where PostgreSQL checks the reader's SELECT on the view). The planner asks a
// function's support function to simplify each call in the query level it
// plans (FROM functions before a subquery is pulled up, so the level is still
// the view's definition): release_support answers with the call plus the view
// as one more argument. SQL cannot write such a call, so no reader forges it.
// Marking here rather than in a planner hook also covers the query during
// whose planning the library is loaded (the support function loads it).
#include "release/view_grants.hpp"

#include <string>

#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/privrisk_function.hpp"

extern "C" {
#include "rewrite/rewriteHandler.h"
}

namespace privrisk::pg {
namespace {

// The view whose definition `query` is, or InvalidOid: a SELECT whose first
// range table entry is a view that is not in its FROM (the OLD placeholder).
Oid view_of_body(Query* query) {
    if (!query || query->commandType != CMD_SELECT || query->rtable == NIL) return InvalidOid;
    RangeTblEntry* first = linitial_node(RangeTblEntry, query->rtable);
    if (first->rtekind != RTE_RELATION || first->relkind != RELKIND_VIEW || first->inFromCl) return InvalidOid;
    return first->relid;
}

Oid function_oid(const char* name, int nargs) {
    static const Oid argtypes[2] = {TEXTOID, TEXTOID};
    return privrisk_function(name, nargs, argtypes);
}

}  // namespace

Node* mark_view_call(SupportRequestSimplify* request) {
    FuncExpr* call = request->fcall;
    int nargs = list_length(call->args);
    PlannerInfo* root = request->root;
    if (!root || (nargs != 1 && nargs != 2)) return nullptr;  // marked already, or outside a planning
    Oid expected = pg_call([&] { return function_oid(nargs == 1 ? "release" : "release_policy_is", nargs); });
    if (call->funcid != expected) return nullptr;
    // The nearest enclosing view definition: a FROM function is simplified in its
    // own level; release_policy_is sits in a CTE of the view over shards.
    Oid view = InvalidOid;
    for (PlannerInfo* level = root; level && !OidIsValid(view); level = level->parent_root)
        view = view_of_body(level->parse);
    if (!OidIsValid(view)) return nullptr;
    return pg_call([&] {
        FuncExpr* marked = static_cast<FuncExpr*>(copyObjectImpl(call));
        marked->args = lappend(list_copy(call->args),
                               makeConst(OIDOID, -1, InvalidOid, sizeof(Oid), ObjectIdGetDatum(view), false, true));
        return reinterpret_cast<Node*>(marked);
    });
}

Oid marked_view(List* args, int position) {
    if (list_length(args) != position + 1) return InvalidOid;
    Node* mark = static_cast<Node*>(list_nth(args, position));
    if (!IsA(mark, Const) || reinterpret_cast<Const*>(mark)->consttype != OIDOID) return InvalidOid;
    return DatumGetObjectId(reinterpret_cast<Const*>(mark)->constvalue);
}

namespace {

// Whether the release() RTE `rte` names `policy` (its key or its name alone).
bool names_policy(RangeTblEntry* rte, Oid release, const std::string& key, const std::string& base) {
    if (rte->rtekind != RTE_FUNCTION || list_length(rte->functions) != 1) return false;
    Node* e = linitial_node(RangeTblFunction, rte->functions)->funcexpr;
    if (!IsA(e, FuncExpr) || reinterpret_cast<FuncExpr*>(e)->funcid != release) return false;
    Node* arg = static_cast<Node*>(linitial(reinterpret_cast<FuncExpr*>(e)->args));
    if (!IsA(arg, Const) || reinterpret_cast<Const*>(arg)->constisnull) return false;
    const char* named = TextDatumGetCString(reinterpret_cast<Const*>(arg)->constvalue);
    return key == named || base == named;
}

}  // namespace

void check_view_definition(Oid view, const std::string& policy, const std::string& base) {
    bool holds = false, plain = false, barrier = false;
    const char* name = nullptr;
    pg_call([&] {
        Oid release = function_oid("release", 1);
        Relation rel = table_open(view, AccessShareLock);
        Query* body = get_view_query(rel);
        // The view's own definition reads this policy's release in its FROM (a
        // call marked with the view from anywhere else is not the view's).
        int index = 0, found = 0;
        ListCell* lc;
        foreach (lc, body->rtable) {
            ++index;
            if (names_policy(lfirst_node(RangeTblEntry, lc), release, policy, base)) found = index;
        }
        holds = found > 0;
        // Allowed without a security barrier: exactly SELECT columns FROM the
        // release, nothing that could leave a row out (a qual, a join, a lateral
        // item, a set-returning target, a sublink, a limit, grouping, DISTINCT).
        FromExpr* from = body->jointree;
        plain = holds && from && !from->quals && list_length(from->fromlist) == 1 &&
                IsA(linitial(from->fromlist), RangeTblRef) &&
                reinterpret_cast<RangeTblRef*>(linitial(from->fromlist))->rtindex == found && !body->hasTargetSRFs &&
                !body->hasSubLinks && !body->havingQual && !body->limitCount && !body->limitOffset &&
                !body->distinctClause && !body->hasAggs && !body->groupClause && !body->groupingSets &&
                !body->hasWindowFuncs && !body->setOperations && !body->cteList && !body->rowMarks;
        barrier = RelationIsSecurityView(rel);
        name = pstrdup(RelationGetRelationName(rel));
        table_close(rel, AccessShareLock);
    });
    if (!holds)
        fail(ErrorKind::PermissionDenied, "policy " + quote_value(policy) +
                                              " does not exist or you may not read its release (release view " +
                                              quote_value(name) + " does not read it in its own FROM)");
    if (!plain && !barrier)
        fail(ErrorKind::InvalidParameter,
             "release view " + quote_value(name) + " of policy " + quote_value(policy) +
                 " can leave rows out (a filter, a join, a limit…) but is not a security barrier, so a reader's own "
                 "functions could see the rows it leaves out: its owner makes it one (ALTER VIEW … SET "
                 "(security_barrier = true))");
}

}  // namespace privrisk::pg
