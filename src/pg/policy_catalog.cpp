#include "policy_catalog.hpp"

#include "error.hpp"
#include "guard.hpp"
#include "spi.hpp"

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
    SetUserIdAndSecContext(owner, saved_context_ | SECURITY_LOCAL_USERID_CHANGE);
}

AsCatalogOwner::~AsCatalogOwner() { SetUserIdAndSecContext(saved_user_, saved_context_); }

// Queries below run as the catalog's owner: every operator is schema-qualified
// so nothing on the caller's search_path can stand in for it.
std::optional<Policy> find_policy(std::string_view name, bool latest) {
    Policy policy;
    policy.name = std::string(name);
    AsCatalogOwner owner;
    Spi spi;
    if (spi.run("SELECT source::oid::int8 FROM privrisk.policy WHERE name OPERATOR(pg_catalog.=) $1",
                {text_arg(name)}, !latest) == 0) {
        spi.finish();
        return std::nullopt;
    }
    policy.source = static_cast<Oid>(spi.int8(0, 1));
    uint64 n = spi.run("SELECT rule, column_name::text, operator, condition, hierarchy, level "
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
        if (r.op == DisclosureOp::Gen && (r.hierarchy.empty() || spi.null(i, 6)))
            fail(ErrorKind::Internal, "gen rule " + std::to_string(r.number) + " of policy " + quote_value(name) +
                                          " has no hierarchy or level");
        policy.rules.push_back(std::move(r));
    }
    spi.finish();
    return policy;
}

Policy load_policy(std::string_view name, bool latest) {
    std::optional<Policy> policy = find_policy(name, latest);
    if (!policy) fail(ErrorKind::UndefinedObject, "policy " + quote_value(name) + " does not exist");
    return std::move(*policy);
}

std::vector<Oid> release_views_of(std::string_view policy) {
    AsCatalogOwner owner;
    Spi spi;
    uint64 n = spi.run("SELECT view::oid::int8 FROM privrisk.release_view WHERE policy OPERATOR(pg_catalog.=) $1",
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

void require_release_reader(const Policy& policy) {
    Oid user = GetUserId();
    bool allowed = reads_source(policy.source);
    for (Oid view : allowed ? std::vector<Oid>{} : release_views_of(policy.name)) {
        allowed = pg_call([&] {
            return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(view)) &&
                   pg_class_aclcheck(view, user, ACL_SELECT) == ACLCHECK_OK;
        });
        if (allowed) break;
    }
    if (!allowed)
        fail(ErrorKind::PermissionDenied, "permission denied for the release of policy " + quote_value(policy.name) +
                                              ": needs SELECT on its source or on one of its release views");
}

AttrNumber source_column(Relation source, const std::string& column, const std::string& policy) {
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

bool forbidden_function(Oid function, void* context) {
    if (function < FirstNormalObjectId && func_volatile(function) == PROVOLATILE_IMMUTABLE) return false;
    static_cast<ConditionCheck*>(context)->function = function;
    return true;
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
    if (check_functions_in_node(node, forbidden_function, context)) {
        check->problem = "may call only immutable built-in functions";
        return true;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(check_condition_node)), context);
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

}  // namespace

Expr* parse_condition(Relation source, const std::string& condition, const std::string& what) {
    if (condition.find('\0') != std::string::npos || condition.size() > 10000)
        fail(ErrorKind::InvalidParameter, what + " is longer than 10000 bytes or holds a NUL byte");
    const char* text = condition.c_str();
    Node* raw;
    try {
        raw = parse_expression(text, what);
    } catch (const PgError& e) {
        fail(ErrorKind::InvalidParameter, what + " is not a valid SQL expression: " + e.what());
    }
    Node* expr = nullptr;
    try {
        expr = pg_call([&] {
            ParseState* pstate = make_parsestate(nullptr);
            pstate->p_sourcetext = text;
            ParseNamespaceItem* item =
                addRangeTableEntryForRelation(pstate, source, AccessShareLock, nullptr, false, false);
            addNSItemToQuery(pstate, item, false, true, true);
            Node* e = transformExpr(pstate, raw, EXPR_KIND_WHERE);
            e = coerce_to_boolean(pstate, e, "a privrisk rule condition");
            assign_expr_collations(pstate, e);
            free_parsestate(pstate);
            return e;
        });
    } catch (const PgError& e) {
        fail(ErrorKind::InvalidParameter, what + " is not valid on the source: " + e.what());
    }
    ConditionCheck check{nullptr, InvalidOid};
    pg_call([&] { check_condition_node(expr, &check); });
    if (check.problem) {
        std::string detail;
        if (OidIsValid(check.function)) {
            Oid f = check.function;
            char* name = pg_call([&] { return get_func_name(f); });
            detail = " (not " + quote_value(name ? name : "?") + ")";
        }
        fail(ErrorKind::InvalidParameter, what + " " + check.problem + detail);
    }
    return pg_call([&] { return expression_planner((Expr*)expr); });
}

}  // namespace privrisk::pg
