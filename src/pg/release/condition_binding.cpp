// Rule conditions: bound once by the owner (parsed alone, analyzed under the
// pinned path, checked to use built-in immutable objects only), and loaded
// again, checked, for each release. Beside fast_condition.*, which runs the
// shapes it can natively.
#include "release/condition_binding.hpp"

#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/spi.hpp"

#include <unordered_map>

namespace privrisk::pg {
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
    if (!IsA(node, List) &&
        (!built_in(exprType(node)) || !built_in(exprCollation(node)) || !built_in(exprInputCollation(node)))) {
        check->problem = "may use only built-in types and collations";
        return true;
    }
    if (check_functions_in_node(node, forbidden_function, context)) {
        check->problem = "may call only immutable built-in functions";
        return true;
    }
    return expression_tree_walker(
        node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(check_condition_node)), context);
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
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(vars_match_source)),
                                  context);
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

namespace {

// Bound trees as parsed, by their text: parsing was most of what starting a
// release costs on a point query, and a text always parses to the same tree.
// A copy is handed out (each load is checked and planned on its own). Kept in a
// context of its own, emptied when it holds many.
MemoryContext parsed_context = nullptr;
std::unordered_map<std::string, Node*> parsed_trees;

Node* parse_tree(const std::string& tree) {
    auto kept = parsed_trees.find(tree);
    if (kept != parsed_trees.end()) {
        Node* original = kept->second;
        return pg_call([&] { return static_cast<Node*>(copyObjectImpl(original)); });
    }
    const char* text = tree.c_str();
    Node* expr = pg_call([&] { return static_cast<Node*>(stringToNode(text)); });
    Node* copy = pg_call([&] {
        if (!parsed_context)
            parsed_context =
                AllocSetContextCreate(CacheMemoryContext, "privrisk parsed conditions", ALLOCSET_SMALL_SIZES);
        MemoryContext old = MemoryContextSwitchTo(parsed_context);
        Node* n = static_cast<Node*>(copyObjectImpl(expr));
        MemoryContextSwitchTo(old);
        return n;
    });
    if (parsed_trees.size() >= 256) {  // conditions a caller makes up do not grow it without end
        parsed_trees.clear();
        pg_call([] { MemoryContextReset(parsed_context); });
        copy = nullptr;
    }
    if (copy) parsed_trees.emplace(tree, copy);
    return expr;
}

}  // namespace

Expr* load_condition(Relation source, const PolicyRule& rule, const std::string& policy) {
    const std::string what =
        "the condition of rule " + std::to_string(rule.number) + " of policy " + quote_value(policy);
    const char* name = policy.c_str();
    const std::string refresh = "; its owner binds it again with privrisk.refresh_policy(" +
                                std::string(pg_call([&] { return quote_literal_cstr(name); })) + ")";
    if (rule.condition_tree.empty())
        fail(ErrorKind::InvalidParameter, what + " has not been bound (it was stored by an older version)" + refresh);
    Node* expr = parse_tree(rule.condition_tree);
    check_condition(expr, what);
    std::vector<AttrNumber> attnos = condition_attnos(expr);
    bool moved = attnos.size() != rule.condition_columns.size();
    TupleDesc desc = RelationGetDescr(source);
    for (std::size_t i = 0; !moved && i < attnos.size(); ++i) {
        // A column renamed in place keeps its meaning (as in a view); a name
        // that now stands at another position means the columns moved (a
        // restore after dropped columns): the tree would read the wrong one.
        if (attnos[i] > desc->natts) {
            moved = true;
            break;
        }
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

std::optional<BoundCondition> bound_in_place(Relation source, const PolicyRule& rule) {
    if (rule.condition_tree.empty()) return std::nullopt;
    const char* tree = rule.condition_tree.c_str();
    Node* expr = pg_call([&] { return static_cast<Node*>(stringToNode(tree)); });
    check_condition(expr, "the condition of rule " + std::to_string(rule.number));
    std::vector<AttrNumber> attnos = condition_attnos(expr);
    TupleDesc desc = RelationGetDescr(source);
    for (AttrNumber attno : attnos)
        if (attno > desc->natts) return std::nullopt;
    if (pg_call([&] { return vars_match_source(expr, source); })) return std::nullopt;
    BoundCondition bound{rule.condition_tree, {}};
    for (AttrNumber attno : attnos) bound.columns.push_back(NameStr(TupleDescAttr(desc, attno - 1)->attname));
    return bound;
}

std::vector<AttrNumber> bound_attnos(const std::string& tree) {
    const char* text = tree.c_str();
    Node* expr = pg_call([&] { return static_cast<Node*>(stringToNode(text)); });
    return condition_attnos(expr);
}

}  // namespace privrisk::pg
