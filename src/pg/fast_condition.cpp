#include "fast_condition.hpp"

#include <cstring>

namespace privrisk::pg {

namespace {

enum class Kind : char { Int2, Int4, Int8, Text, Bool };
enum class Test : char { Eq, Ne, Lt, Le, Gt, Ge, IsNull, IsNotNull, IsTrue, IsFalse };

struct Term {
    int column;  // 0-based index into the source row
    Kind kind;
    Test test;
    int64 number;
    const char* bytes;
    int length;
};

}  // namespace

struct FastCondition {
    bool any;  // OR of the terms; else AND
    int count;
    Term terms[FLEXIBLE_ARRAY_MEMBER];
};

namespace {

Var* column_of(Node* node) {
    while (node && IsA(node, RelabelType)) node = (Node*)((RelabelType*)node)->arg;
    if (!node || !IsA(node, Var)) return nullptr;
    Var* var = (Var*)node;
    return var->varno == 1 && var->varlevelsup == 0 && var->varattno > 0 ? var : nullptr;
}

bool integer_kind(Oid type, Kind* kind) {
    switch (type) {
        case INT2OID: *kind = Kind::Int2; return true;
        case INT4OID: *kind = Kind::Int4; return true;
        case INT8OID: *kind = Kind::Int8; return true;
        default: return false;
    }
}

int64 integer_value(Kind kind, Datum d) {
    switch (kind) {
        case Kind::Int2: return DatumGetInt16(d);
        case Kind::Int4: return DatumGetInt32(d);
        default: return DatumGetInt64(d);
    }
}

// The btree strategy of `op` in `family` (ROWCOMPARE_NE for a <> operator), or 0.
int strategy_in(Oid op, Oid family) {
    List* interpretations = get_op_btree_interpretation(op);
    ListCell* lc;
    foreach (lc, interpretations) {
        auto* i = (OpBtreeInterpretation*)lfirst(lc);
        if (i->opfamily_id == family) return i->strategy;
    }
    return 0;
}

bool comparison_term(OpExpr* op, Term* term) {
    if (list_length(op->args) != 2) return false;
    Node* left = (Node*)linitial(op->args);
    Node* right = (Node*)lsecond(op->args);
    Var* var = column_of(left);
    bool swapped = false;
    if (!var) {
        var = column_of(right);
        right = left;
        swapped = true;
    }
    if (!var || !IsA(right, Const) || ((Const*)right)->constisnull) return false;
    Const* value = (Const*)right;
    term->column = var->varattno - 1;
    Kind var_kind, const_kind;
    if (integer_kind(var->vartype, &var_kind) && integer_kind(value->consttype, &const_kind)) {
        int strategy = strategy_in(op->opno, INTEGER_BTREE_FAM_OID);
        static const Test direct[] = {Test::Eq, Test::Lt, Test::Le, Test::Eq, Test::Ge, Test::Gt, Test::Ne};
        static const Test mirrored[] = {Test::Eq, Test::Gt, Test::Ge, Test::Eq, Test::Le, Test::Lt, Test::Ne};
        if (strategy < 1 || strategy > ROWCOMPARE_NE) return false;
        term->kind = var_kind;
        term->test = swapped ? mirrored[strategy] : direct[strategy];
        term->number = integer_value(const_kind, value->constvalue);
        return true;
    }
    // Text: only (in)equality, and only where it means byte equality.
    if ((var->vartype == TEXTOID || var->vartype == VARCHAROID) && value->consttype == TEXTOID &&
        OidIsValid(op->inputcollid) && get_collation_isdeterministic(op->inputcollid)) {
        int strategy = strategy_in(op->opno, TEXT_BTREE_FAM_OID);
        if (strategy != BTEqualStrategyNumber && strategy != ROWCOMPARE_NE) return false;
        text* t = DatumGetTextPP(value->constvalue);
        term->kind = Kind::Text;
        term->test = strategy == BTEqualStrategyNumber ? Test::Eq : Test::Ne;
        term->length = VARSIZE_ANY_EXHDR(t);
        char* bytes = (char*)palloc(term->length + 1);
        std::memcpy(bytes, VARDATA_ANY(t), term->length);
        term->bytes = bytes;
        return true;
    }
    return false;
}

bool term_of(Node* node, Term* term) {
    if (IsA(node, OpExpr)) return comparison_term((OpExpr*)node, term);
    if (IsA(node, NullTest)) {
        NullTest* test = (NullTest*)node;
        Var* var = column_of((Node*)test->arg);
        if (!var || test->argisrow || type_is_rowtype(var->vartype)) return false;
        term->column = var->varattno - 1;
        term->kind = Kind::Bool;
        term->test = test->nulltesttype == IS_NULL ? Test::IsNull : Test::IsNotNull;
        return true;
    }
    bool negated = IsA(node, BoolExpr) && ((BoolExpr*)node)->boolop == NOT_EXPR;
    Var* var = column_of(negated ? (Node*)linitial(((BoolExpr*)node)->args) : node);
    if (!var || var->vartype != BOOLOID) return false;
    term->column = var->varattno - 1;
    term->kind = Kind::Bool;
    term->test = negated ? Test::IsFalse : Test::IsTrue;
    return true;
}

bool term_holds(const Term& t, const Datum* values, const bool* isnull) {
    bool null = isnull[t.column];
    if (t.test == Test::IsNull) return null;
    if (t.test == Test::IsNotNull) return !null;
    if (null) return false;  // a comparison with NULL is unknown: it protects
    Datum d = values[t.column];
    switch (t.kind) {
        case Kind::Bool:
            return DatumGetBool(d) == (t.test == Test::IsTrue);
        case Kind::Text: {
            auto* v = (text*)DatumGetPointer(d);
            if (VARATT_IS_EXTERNAL(v) || VARATT_IS_COMPRESSED(v)) v = DatumGetTextPP(d);
            bool equal = (int)VARSIZE_ANY_EXHDR(v) == t.length && std::memcmp(VARDATA_ANY(v), t.bytes, t.length) == 0;
            return equal == (t.test == Test::Eq);
        }
        default: {
            int64 x = integer_value(t.kind, d);
            switch (t.test) {
                case Test::Eq: return x == t.number;
                case Test::Ne: return x != t.number;
                case Test::Lt: return x < t.number;
                case Test::Le: return x <= t.number;
                case Test::Gt: return x > t.number;
                case Test::Ge: return x >= t.number;
                default: return false;
            }
        }
    }
}

}  // namespace

FastCondition* compile_fast_condition(Expr* condition) {
    Node* node = (Node*)condition;
    List* parts = list_make1(node);
    bool any = false;
    if (IsA(node, BoolExpr) && ((BoolExpr*)node)->boolop != NOT_EXPR) {
        parts = ((BoolExpr*)node)->args;
        any = ((BoolExpr*)node)->boolop == OR_EXPR;
    }
    auto* fast = (FastCondition*)palloc0(offsetof(FastCondition, terms) + sizeof(Term) * list_length(parts));
    fast->any = any;
    ListCell* lc;
    foreach (lc, parts) {
        if (!term_of((Node*)lfirst(lc), &fast->terms[fast->count])) {
            pfree(fast);
            return nullptr;
        }
        ++fast->count;
    }
    return fast;
}

// AND is TRUE when every term is TRUE, OR when one is; NULL or FALSE is not TRUE either way.
bool fast_condition_holds(const FastCondition* c, const Datum* values, const bool* isnull) {
    for (int i = 0; i < c->count; ++i)
        if (term_holds(c->terms[i], values, isnull) == c->any) return c->any;
    return !c->any;
}

}  // namespace privrisk::pg
