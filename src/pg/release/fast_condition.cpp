#include "release/fast_condition.hpp"

#include <algorithm>
#include <cstring>

namespace privrisk::pg {

namespace {

using Kind = FastCondition::Kind;
using Test = FastCondition::Test;
using Term = FastCondition::Term;

Var* column_of(Node* node) {
    while (node && IsA(node, RelabelType)) node = (Node*)((RelabelType*)node)->arg;
    if (!node || !IsA(node, Var)) return nullptr;
    Var* var = (Var*)node;
    return var->varno == 1 && var->varlevelsup == 0 && var->varattno > 0 ? var : nullptr;
}

bool integer_kind(Oid type, Kind* kind) {
    switch (type) {
        case INT2OID:
            *kind = Kind::Int2;
            return true;
        case INT4OID:
            *kind = Kind::Int4;
            return true;
        case INT8OID:
            *kind = Kind::Int8;
            return true;
        default:
            return false;
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

// The constant's first 16 bytes as a short datum (header byte, then its bytes)
// and their mask. A constant too long for a short header gets an impossible
// header (external), so no short datum matches it, which is right: a short datum
// is under 127 bytes.
void inline_form(Term* term) {
    unsigned char form[16] = {0}, mask[16] = {0};
    if (term->length <= static_cast<int>(VARATT_SHORT_MAX - VARHDRSZ_SHORT))
        SET_VARSIZE_SHORT(form, term->length + VARHDRSZ_SHORT);
    else SET_VARTAG_1B_E(form, 0);
    int n = std::min(term->length, 15);
    std::memcpy(form + 1, term->bytes, n);
    std::memset(mask, 0xff, n + 1);
    std::memcpy(term->inline_words, form, 16);
    std::memcpy(term->inline_mask, mask, 16);
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
        // By btree strategy 1..5 (<, <=, =, >=, >) and ROWCOMPARE_NE (<>); mirrored for constant op column.
        static const Test direct[] = {Test::Eq, Test::Lt, Test::Le, Test::Eq, Test::Ge, Test::Gt, Test::Ne};
        static const Test mirrored[] = {Test::Eq, Test::Gt, Test::Ge, Test::Eq, Test::Le, Test::Lt, Test::Ne};
        if (strategy < 1 || strategy > ROWCOMPARE_NE) return false;
        term->kind = var_kind;
        term->test = swapped ? mirrored[strategy] : direct[strategy];
        term->number = FastCondition::integer_value(const_kind, value->constvalue);
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
        inline_form(term);
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

// Specialized tests: the kind and test are fixed per term, so each row runs only
// its own comparison.
template <Kind K, Test T>
bool integer_holds(const Term& t, const Datum* values, const bool* isnull) {
    return !isnull[t.column] && integer_test(T, FastCondition::integer_value(K, values[t.column]), t.number);
}

template <bool Equal>
bool text_holds(const Term& t, const Datum* values, const bool* isnull) {
    return !isnull[t.column] && text_equals(t, values[t.column]) == Equal;
}

bool generic_holds(const Term& t, const Datum* values, const bool* isnull) {
    return fast_term_holds(t, values, isnull);
}

template <Kind K>
bool (*integer_for(Test test))(const Term&, const Datum*, const bool*) {
    switch (test) {
        case Test::Eq:
            return integer_holds<K, Test::Eq>;
        case Test::Ne:
            return integer_holds<K, Test::Ne>;
        case Test::Lt:
            return integer_holds<K, Test::Lt>;
        case Test::Le:
            return integer_holds<K, Test::Le>;
        case Test::Gt:
            return integer_holds<K, Test::Gt>;
        case Test::Ge:
            return integer_holds<K, Test::Ge>;
        default:
            return generic_holds;
    }
}

void specialize(Term* t) {
    switch (t->kind) {
        case Kind::Int2:
            t->holds = integer_for<Kind::Int2>(t->test);
            break;
        case Kind::Int4:
            t->holds = integer_for<Kind::Int4>(t->test);
            break;
        case Kind::Int8:
            t->holds = integer_for<Kind::Int8>(t->test);
            break;
        case Kind::Text:
            t->holds = t->test == Test::Eq ? text_holds<true> : text_holds<false>;
            break;
        default:
            t->holds = generic_holds;
            break;
    }
}

}  // namespace

FastCondition* compile_fast_condition(Expr* condition) {
    Node* node = (Node*)condition;
    if (IsA(node, Const)) {  // folded by the planner: TRUE is an empty AND, FALSE or NULL an empty OR
        auto* constant = (FastCondition*)palloc0(offsetof(FastCondition, terms));
        Const* c = (Const*)node;
        constant->any = c->constisnull || !DatumGetBool(c->constvalue);
        return constant;
    }
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
        specialize(&fast->terms[fast->count]);
        ++fast->count;
    }
    return fast;
}

}  // namespace privrisk::pg
