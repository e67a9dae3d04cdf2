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
    static Oid argtypes[2] = {TEXTOID, TEXTOID};
    List* qualified = list_make2(makeString(const_cast<char*>("privrisk")), makeString(const_cast<char*>(name)));
    return LookupFuncName(qualified, nargs, argtypes, true);
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

void check_view_filter(Oid view, const std::string& policy) {
    bool filters = false, barrier = false;
    const char* name = nullptr;
    pg_call([&] {
        Relation rel = table_open(view, AccessShareLock);
        Query* body = get_view_query(rel);
        filters = body->jointree && (body->jointree->quals || list_length(body->jointree->fromlist) != 1);
        filters |= body->havingQual || body->limitCount || body->limitOffset || body->distinctClause ||
                   body->hasAggs || body->groupClause || body->hasWindowFuncs || body->setOperations;
        barrier = RelationIsSecurityView(rel);
        name = pstrdup(RelationGetRelationName(rel));
        table_close(rel, AccessShareLock);
    });
    if (filters && !barrier)
        fail(ErrorKind::InvalidParameter,
             "release view " + quote_value(name) + " of policy " + quote_value(policy) +
                 " filters the rows it releases but is not a security barrier, so a reader's own functions could "
                 "see the rows it leaves out: its owner makes it one (ALTER VIEW … SET (security_barrier = true))");
}

}  // namespace privrisk::pg
