#include "release/policy_catalog.hpp"

#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/spi.hpp"

namespace privrisk::pg {

namespace {

Oid catalog_owner() {
    return pg_call([] {
        Oid schema = get_namespace_oid("privrisk", false);
        Oid relid = get_relname_relid("policy", schema);
        if (!OidIsValid(relid)) elog(ERROR, "privrisk.policy is missing; update the extension to 0.4");
        HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
        if (!HeapTupleIsValid(tuple)) elog(ERROR, "cache lookup failed for relation %u", relid);
        Oid owner = ((Form_pg_class)GETSTRUCT(tuple))->relowner;
        ReleaseSysCache(tuple);
        return owner;
    });
}

std::string relation_name(Oid relid) {
    char* name = pg_call([&] { return get_rel_name(relid); });
    return name ? std::string(name) : "(dropped relation " + std::to_string(relid) + ")";
}

}  // namespace

AsCatalogOwner::AsCatalogOwner() {
    Oid owner = catalog_owner();
    GetUserIdAndSecContext(&saved_user_, &saved_context_);
    SetUserIdAndSecContext(owner, saved_context_ | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
}

AsCatalogOwner::~AsCatalogOwner() { SetUserIdAndSecContext(saved_user_, saved_context_); }

// Queries below run as the catalog's owner: every operator is schema-qualified
// so nothing on the caller's search_path can stand in for it.
std::optional<Policy> find_policy(std::string_view name, bool latest) {
    Policy policy;
    policy.name = std::string(name);
    AsCatalogOwner owner;
    Spi spi;
    if (spi.run("SELECT source::pg_catalog.oid::pg_catalog.int8 FROM privrisk.policy WHERE name OPERATOR(pg_catalog.=) $1",
                {text_arg(name)}, !latest) == 0) {
        spi.finish();
        return std::nullopt;
    }
    policy.source = static_cast<Oid>(spi.int8(0, 1));
    uint64 n = spi.run("SELECT rule, column_name::pg_catalog.text, operator, condition, hierarchy, level, "
                       "condition_tree, condition_columns::pg_catalog.text[], hierarchy_version "
                       "FROM privrisk.policy_rule WHERE policy OPERATOR(pg_catalog.=) $1 ORDER BY rule",
                       {text_arg(name)}, !latest);
    for (uint64 i = 0; i < n; ++i) {
        PolicyRule r;
        r.number = static_cast<int>(spi.int8(i, 1));
        r.column = spi.string(i, 2);
        std::string op = spi.string(i, 3);
        if (op != "hide" && op != "gen")
            fail(ErrorKind::Internal, "rule " + std::to_string(r.number) + " of policy " + quote_value(name) +
                                          " has unknown operator " + quote_value(op));
        r.op = op == "hide" ? DisclosureOp::Hide : DisclosureOp::Gen;
        r.condition = spi.string(i, 4);
        r.hierarchy = spi.null(i, 5) ? "" : spi.string(i, 5);
        r.level = spi.null(i, 6) ? 0 : static_cast<int>(spi.int8(i, 6));
        if (!spi.null(i, 7)) r.condition_tree = spi.string(i, 7);
        if (!spi.null(i, 8)) r.condition_columns = spi.strings(i, 8);
        if (!spi.null(i, 9)) r.hierarchy_version = spi.int8(i, 9);
        if (r.op == DisclosureOp::Gen && (r.hierarchy.empty() || spi.null(i, 6)))
            fail(ErrorKind::Internal, "gen rule " + std::to_string(r.number) + " of policy " + quote_value(name) +
                                          " has no hierarchy or level");
        policy.rules.push_back(std::move(r));
    }
    spi.finish();
    return policy;
}


Policy load_owned_policy(std::string_view name) {
    std::optional<Policy> policy = find_policy(name, true);
    if (policy) {
        Oid source = policy->source;
        bool mine = pg_call([&] {
            return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(source)) ? pg_class_ownercheck(source, GetUserId())
                                                                           : superuser();
        });
        if (mine) return std::move(*policy);
    }
    fail(ErrorKind::UndefinedObject, "policy " + quote_value(name) + " does not exist or you do not own its source");
}

Policy load_readable_policy(std::string_view name) {
    std::optional<Policy> policy = find_policy(name);
    if (!policy || !may_read_release(*policy))
        fail(ErrorKind::PermissionDenied,
             "policy " + quote_value(name) +
                 " does not exist or you may not read its release (that needs SELECT on its source or on one of its "
                 "release views)");
    return std::move(*policy);
}

std::vector<Oid> release_views_of(std::string_view policy) {
    AsCatalogOwner owner;
    Spi spi;
    uint64 n = spi.run("SELECT view::pg_catalog.oid::pg_catalog.int8 FROM privrisk.release_view WHERE policy OPERATOR(pg_catalog.=) $1",
                       {text_arg(policy)}, true);
    std::vector<Oid> views;
    for (uint64 i = 0; i < n; ++i) views.push_back(static_cast<Oid>(spi.int8(i, 1)));
    spi.finish();
    return views;
}

Relation open_policy_source(const Policy& policy) {
    Oid source = policy.source;
    bool exists = pg_call([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(source)); });
    if (!exists)
        fail(ErrorKind::UndefinedObject,
             "the source of policy " + quote_value(policy.name) + " (relation " + std::to_string(source) +
                 ") no longer exists; drop the policy");
    Relation rel = pg_call([&] { return table_open(source, AccessShareLock); });
    char kind = rel->rd_rel->relkind;
    bool rls = rel->rd_rel->relrowsecurity;
    if (kind != RELKIND_RELATION && kind != RELKIND_MATVIEW && kind != RELKIND_PARTITIONED_TABLE)
        fail(ErrorKind::InvalidParameter, "the source of policy " + quote_value(policy.name) + ", " +
                                              relation_name(source) + ", is not a table or materialized view");
    if (rls)
        fail(ErrorKind::InvalidParameter,
             "the source of policy " + quote_value(policy.name) + ", " + relation_name(source) +
                 ", has row-level security; a release would bypass it");
    return rel;
}

void require_source_owner(Oid source, const char* action) {
    bool owner = pg_call([&] { return pg_class_ownercheck(source, GetUserId()); });
    if (!owner)
        fail(ErrorKind::PermissionDenied, "must be owner of table " + relation_name(source) + " to " + action);
}

bool reads_source(Oid source) {
    return pg_call([&] {
        Oid user = GetUserId();
        return pg_class_ownercheck(source, user) || pg_class_aclcheck(source, user, ACL_SELECT) == ACLCHECK_OK;
    });
}

bool may_read_release(const Policy& policy) {
    Oid user = GetUserId();
    if (pg_call([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(policy.source)); }) &&
        reads_source(policy.source))
        return true;
    for (Oid view : release_views_of(policy.name))
        if (pg_call([&] {
                return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(view)) &&
                       pg_class_aclcheck(view, user, ACL_SELECT) == ACLCHECK_OK;
            }))
            return true;
    return false;
}

AttrNumber policy_column_attno(Relation source, const std::string& column, const std::string& policy) {
    const char* name = column.c_str();
    AttrNumber attno = pg_call([&] { return get_attnum(RelationGetRelid(source), name); });
    if (attno == InvalidAttrNumber || attno < 0)
        fail(ErrorKind::UndefinedObject, "column " + quote_value(column) + " of " +
                                             relation_name(RelationGetRelid(source)) + " (the source of policy " +
                                             quote_value(policy) + ") does not exist");
    return attno;
}

// ---------------------------------------------------------------------------
// Conditions
// ---------------------------------------------------------------------------
namespace {

// What the walker found wrong; the walker runs inside PostgreSQL's C code, so
// it records the problem and stops, and C++ reports it afterwards.
struct ConditionCheck {
    const char* problem;
    Oid function;
};

bool built_in(Oid oid) { return !OidIsValid(oid) || oid < FirstNormalObjectId; }

bool forbidden_function(Oid function, void* context) {
    if (built_in(function) && func_volatile(function) == PROVOLATILE_IMMUTABLE) return false;
    static_cast<ConditionCheck*>(context)->function = function;
    return true;
}

// Operators are checked as objects, not only through the functions behind
// them: a condition names built-in operators, whatever function one runs.
bool forbidden_operator(Node* node) {
    switch (nodeTag(node)) {
        case T_OpExpr:
        case T_DistinctExpr:
        case T_NullIfExpr:
            return !built_in(reinterpret_cast<OpExpr*>(node)->opno);
        case T_ScalarArrayOpExpr:
            return !built_in(reinterpret_cast<ScalarArrayOpExpr*>(node)->opno);
        case T_RowCompareExpr: {
            ListCell* lc;
            foreach (lc, reinterpret_cast<RowCompareExpr*>(node)->opnos)
                if (!built_in(lfirst_oid(lc))) return true;
            return false;
        }
        default:
            return false;
    }
}

bool check_condition_node(Node* node, void* context) {
    auto* check = static_cast<ConditionCheck*>(context);
    if (!node) return false;
    switch (nodeTag(node)) {
        case T_Var: {
            Var* var = (Var*)node;
            if (var->varlevelsup != 0 || var->varno != 1 || var->varattno <= 0) {
                check->problem = "may refer only to user columns of the source";
                return true;
            }
            break;
        }
        case T_SubLink:
            check->problem = "may not contain a subquery";
            return true;
        case T_Param:
            check->problem = "may not contain a parameter";
            return true;
        case T_Const:
        case T_FuncExpr:
        case T_OpExpr:
        case T_DistinctExpr:
        case T_NullIfExpr:
        case T_ScalarArrayOpExpr:
        case T_BoolExpr:
        case T_NullTest:
        case T_BooleanTest:
        case T_CaseExpr:
        case T_CaseWhen:
        case T_CaseTestExpr:
        case T_CoalesceExpr:
        case T_MinMaxExpr:
        case T_RelabelType:
        case T_CoerceViaIO:
        case T_ArrayCoerceExpr:
        case T_ArrayExpr:
        case T_CollateExpr:
        case T_RowExpr:
        case T_RowCompareExpr:
        case T_List:
            break;
        default:
            check->problem = "may use only columns, constants, operators and immutable built-in functions";
            return true;
    }
    if (forbidden_operator(node)) {
        check->problem = "may use only built-in operators";
        return true;
    }
    if (!IsA(node, List) && (!built_in(exprType(node)) || !built_in(exprCollation(node)) ||
                             !built_in(exprInputCollation(node)))) {
        check->problem = "may use only built-in types and collations";
        return true;
    }
    if (check_functions_in_node(node, forbidden_function, context)) {
        check->problem = "may call only immutable built-in functions";
        return true;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(check_condition_node)), context);
}

void check_condition(Node* expr, const std::string& what) {
    ConditionCheck check{nullptr, InvalidOid};
    pg_call([&] { check_condition_node(expr, &check); });
    if (!check.problem) return;
    std::string detail;
    if (OidIsValid(check.function)) {
        Oid f = check.function;
        char* name = pg_call([&] { return get_func_name(f); });
        detail = " (not " + quote_value(name ? name : "?") + ")";
    }
    fail(ErrorKind::InvalidParameter, what + " " + check.problem + detail);
}

// The expression of a condition parsed on its own (never spliced into a
// statement): exactly one expression, no clause around it.
Node* parse_expression(const char* text, const std::string& what) {
    List* parsed = pg_call([&] { return raw_parser(text, RAW_PARSE_PLPGSQL_EXPR); });
    auto* stmt = list_length(parsed) == 1 ? (SelectStmt*)((RawStmt*)linitial(parsed))->stmt : nullptr;
    bool plain = stmt && IsA(stmt, SelectStmt) && stmt->op == SETOP_NONE && list_length(stmt->targetList) == 1 &&
                 !stmt->fromClause && !stmt->whereClause && !stmt->groupClause && !stmt->havingClause &&
                 !stmt->windowClause && !stmt->sortClause && !stmt->limitOffset && !stmt->limitCount &&
                 !stmt->lockingClause && !stmt->distinctClause && !stmt->intoClause && !stmt->withClause &&
                 !stmt->valuesLists;
    ResTarget* target = plain ? (ResTarget*)linitial(stmt->targetList) : nullptr;
    if (!target || target->name || target->indirection ||
        (IsA(target->val, ColumnRef) && IsA(llast(((ColumnRef*)target->val)->fields), A_Star)))
        fail(ErrorKind::InvalidParameter, what + " must be one SQL expression, with no clause around it");
    return target->val;
}

bool raw_has_sublink(Node* node, void*) {
    if (!node) return false;
    if (IsA(node, SubLink)) return true;
    return raw_expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(raw_has_sublink)),
                                      nullptr);
}

// The distinct user columns an expression reads, ascending.
std::vector<AttrNumber> condition_attnos(Node* expr) {
    Bitmapset* read = nullptr;
    pg_call([&] { pull_varattnos(expr, 1, &read); });
    std::vector<AttrNumber> attnos;
    for (int k = -1; (k = bms_next_member(read, k)) >= 0;) attnos.push_back(k + FirstLowInvalidHeapAttributeNumber);
    return attnos;
}

// Every Var still matches the source: the column exists, is not dropped, and
// has the type, typmod and collation it had when the condition was bound.
bool vars_match_source(Node* node, void* context) {
    if (!node) return false;
    if (IsA(node, Var)) {
        Var* var = (Var*)node;
        TupleDesc desc = RelationGetDescr(static_cast<Relation>(context));
        if (var->varattno < 1 || var->varattno > desc->natts) return true;
        Form_pg_attribute a = TupleDescAttr(desc, var->varattno - 1);
        return a->attisdropped || a->atttypid != var->vartype || a->atttypmod != var->vartypmod ||
               a->attcollation != var->varcollid;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(vars_match_source)), context);
}

}  // namespace

BoundCondition bind_condition(Relation source, const std::string& condition, const std::string& what) {
    if (condition.find('\0') != std::string::npos || condition.size() > 10000)
        fail(ErrorKind::InvalidParameter, what + " is longer than 10000 bytes or holds a NUL byte");
    const char* text = condition.c_str();
    Node* raw;
    try {
        raw = parse_expression(text, what);
    } catch (const PgError& e) {
        fail(ErrorKind::InvalidParameter, what + " is not a valid SQL expression: " + e.what());
    }
    // Refused before analysis, which would look up the subquery's relations.
    if (pg_call([&] { return raw_has_sublink(raw, nullptr); }))
        fail(ErrorKind::InvalidParameter, what + " may not contain a subquery");
    Node* expr = nullptr;
    try {
        // Names resolve under the pinned path: `=` is pg_catalog's, whoever calls.
        with_pinned_search_path([&] {
            ParseState* pstate = make_parsestate(nullptr);
            pstate->p_sourcetext = text;
            ParseNamespaceItem* item =
                addRangeTableEntryForRelation(pstate, source, AccessShareLock, nullptr, false, false);
            addNSItemToQuery(pstate, item, false, true, true);
            Node* e = transformExpr(pstate, raw, EXPR_KIND_WHERE);
            e = coerce_to_boolean(pstate, e, "a privrisk rule condition");
            assign_expr_collations(pstate, e);
            free_parsestate(pstate);
            expr = e;
        });
    } catch (const PgError& e) {
        int code = e.data()->sqlerrcode;
        bool unknown = code == ERRCODE_UNDEFINED_FUNCTION || code == ERRCODE_UNDEFINED_OBJECT;
        fail(ErrorKind::InvalidParameter,
             what + " is not valid on the source: " + e.what() +
                 (unknown ? " (a condition may use only built-in functions, operators and types, and names them "
                            "as in pg_catalog)"
                          : ""));
    }
    check_condition(expr, what);
    BoundCondition bound;
    bound.tree = pg_call([&] { return nodeToString(expr); });
    for (AttrNumber attno : condition_attnos(expr))
        bound.columns.push_back(NameStr(TupleDescAttr(RelationGetDescr(source), attno - 1)->attname));
    return bound;
}

Expr* load_condition(Relation source, const PolicyRule& rule, const std::string& policy) {
    const std::string what = "the condition of rule " + std::to_string(rule.number) + " of policy " + quote_value(policy);
    const char* name = policy.c_str();
    const std::string refresh = "; its owner binds it again with privrisk.refresh_policy(" +
                                std::string(pg_call([&] { return quote_literal_cstr(name); })) + ")";
    if (rule.condition_tree.empty())
        fail(ErrorKind::InvalidParameter, what + " has not been bound (it was stored by an older version)" + refresh);
    const char* tree = rule.condition_tree.c_str();
    Node* expr = pg_call([&] { return static_cast<Node*>(stringToNode(tree)); });
    check_condition(expr, what);
    std::vector<AttrNumber> attnos = condition_attnos(expr);
    bool moved = attnos.size() != rule.condition_columns.size();
    TupleDesc desc = RelationGetDescr(source);
    for (std::size_t i = 0; !moved && i < attnos.size(); ++i) {
        // A column renamed in place keeps its meaning (as in a view); a name
        // that now stands at another position means the columns moved (a
        // restore after dropped columns): the tree would read the wrong one.
        if (attnos[i] > desc->natts) { moved = true; break; }
        const char* now = NameStr(TupleDescAttr(desc, attnos[i] - 1)->attname);
        if (rule.condition_columns[i] == now) continue;
        const char* was = rule.condition_columns[i].c_str();
        AttrNumber elsewhere = pg_call([&] { return get_attnum(RelationGetRelid(source), was); });
        moved = elsewhere != InvalidAttrNumber;
    }
    if (moved || pg_call([&] { return vars_match_source(expr, source); }))
        fail(ErrorKind::InvalidParameter, what + " reads a column that was dropped, moved or changed type" + refresh);
    return pg_call([&] { return expression_planner((Expr*)expr); });
}

}  // namespace privrisk::pg
