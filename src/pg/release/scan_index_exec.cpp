// Execution of a release scan's index access (scan_index.hpp): the chosen btree
// index of the source is opened at begin, once every column the plan relied on
// is confirmed to show its source the same way under the policy as it is now;
// otherwise the scan reads the whole source, and the quals above keep the rows
// exact either way. The keys are built at the first row and again at every
// rescan (a nested loop's parameters change between them).
//
// Per-row code (next_index_row) holds no C++ object with a destructor.
#include "release/scan_index.hpp"

#include "hierarchy/hierarchy_catalog.hpp"
#include "release/scan_state.hpp"

extern "C" {
#include "access/genam.h"
#include "access/nbtree.h"
#include "access/relscan.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_operator_d.h"
#include "utils/datum.h"
#include "utils/ruleutils.h"
}

namespace privrisk::pg {

struct IndexQual {
    int kind;  // 0 scalar, 1 array (as is); 2 label, 3 labels
    AttrNumber index_column;
    Oid opno;  // as is: the qual's operator; labels: the index's equality
    int strategy;
    Oid subtype;
    Oid collation;
    Expr* arg_expr;
    ExprState* arg;
    Datum leaves;  // labels: the raw values under them, an array (0 when none can match)
    char* column;
};

struct IndexAccess {
    Relation index;
    char* name;
    IndexScanDesc scan;
    int count;
    IndexQual* quals;
    ScanKey keys;
    MemoryContext key_context;  // the keys' values, made again at each rescan
    bool keys_ready;
    bool empty;  // a key can match nothing (a NULL, no leaf): no row
};

namespace {

enum { kScalar = 0, kArray = 1, kLabel = 2, kLabels = 3 };

const IndexableColumn* column_named(const std::vector<IndexableColumn>& now, const char* name) {
    for (const IndexableColumn& c : now)
        if (c.name == name) return &c;
    return nullptr;
}

void build_keys(ReleaseScanState* s) {
    IndexAccess* a = s->index_access;
    ExprContext* econtext = s->css.ss.ps.ps_ExprContext;
    MemoryContextReset(a->key_context);
    a->empty = false;
    for (int i = 0; i < a->count; ++i) {
        IndexQual& q = a->quals[i];
        Datum value;
        bool isnull = false;
        int flags = 0;
        if (q.kind == kLabel || q.kind == kLabels) {
            value = q.leaves;
            isnull = value == 0;
            flags = SK_SEARCHARRAY;
        } else {
            value = ExecEvalExprSwitchContext(q.arg, econtext, &isnull);
            if (q.kind == kArray) flags = SK_SEARCHARRAY;
            if (!isnull) {
                MemoryContext old = MemoryContextSwitchTo(a->key_context);
                int16 typlen;
                bool byval;
                get_typlenbyval(exprType(reinterpret_cast<Node*>(q.arg_expr)), &typlen, &byval);
                value = datumCopy(value, byval, typlen);
                MemoryContextSwitchTo(old);
            }
        }
        if (isnull) a->empty = true;  // = NULL, = ANY(NULL): no row
        ScanKeyEntryInitialize(&a->keys[i], flags, q.index_column, q.strategy, q.subtype, q.collation,
                               get_opcode(q.opno), value);
    }
    ResetExprContext(econtext);
    a->keys_ready = true;
}

}  // namespace

void begin_index_access(ReleaseScanState* s, List* access, const std::vector<IndexableColumn>& now) {
    auto* plan = reinterpret_cast<CustomScan*>(s->css.ss.ps.plan);
    const int first_arg = intVal(lthird(plan->custom_private));
    const Oid index_oid = static_cast<Oid>(strtoul(strVal(linitial(access)), nullptr, 10));
    const int count = list_length(access) - 2;
    // Every column the index reads must still show its source the same way.
    for (int i = 0; i < count; ++i) {
        List* q = static_cast<List*>(list_nth(access, i + 2));
        const int kind = intVal(list_nth(q, 0));
        const IndexableColumn* c = column_named(now, strVal(list_nth(q, 6)));
        if (!c || c->attno != intVal(list_nth(q, 3))) return;
        if ((kind == kScalar || kind == kArray) && c->access != ColumnAccess::AsIs) return;
        if ((kind == kLabel || kind == kLabels) &&
            (c->access != ColumnAccess::Label || c->level != intVal(list_nth(q, 4))))
            return;
    }
    if (!pg_call([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(index_oid)); })) return;
    auto* a = static_cast<IndexAccess*>(pg_call([] { return palloc0(sizeof(IndexAccess)); }));
    a->count = count;
    a->quals = static_cast<IndexQual*>(pg_call([&] { return palloc0(sizeof(IndexQual) * count); }));
    a->keys = static_cast<ScanKey>(pg_call([&] { return palloc0(sizeof(ScanKeyData) * count); }));
    a->key_context = pg_call([] {
        return AllocSetContextCreate(CurrentMemoryContext, "privrisk release index keys", ALLOCSET_SMALL_SIZES);
    });
    a->index = pg_call([&] { return index_open(index_oid, AccessShareLock); });
    a->name = pg_call([&] { return pstrdup(RelationGetRelationName(a->index)); });
    for (int i = 0; i < count; ++i) {
        List* l = static_cast<List*>(list_nth(access, i + 2));
        IndexQual& q = a->quals[i];
        q.kind = intVal(list_nth(l, 0));
        q.index_column = static_cast<AttrNumber>(intVal(list_nth(l, 1)));
        q.opno = static_cast<Oid>(intVal(list_nth(l, 2)));
        q.collation = static_cast<Oid>(intVal(list_nth(l, 5)));
        q.column = strVal(list_nth(l, 6));
        q.arg_expr = static_cast<Expr*>(list_nth(plan->custom_exprs, first_arg + i));
        const Oid family = a->index->rd_opfamily[q.index_column - 1];
        const Oid type = a->index->rd_opcintype[q.index_column - 1];
        if (q.kind == kLabel || q.kind == kLabels) {
            const IndexableColumn* c = column_named(now, q.column);
            const Hierarchy& h = cached_hierarchy(c->hierarchy);
            Oid raw = TupleDescAttr(RelationGetDescr(s->source), c->attno - 1)->atttypid;
            Datum labels = castNode(Const, q.arg_expr)->constvalue;
            bool null = castNode(Const, q.arg_expr)->constisnull;
            int n = 0;
            if (!null && !label_leaves(h, c->level, labels, q.kind == kLabels, raw, &q.leaves, &n)) {
                pg_call([&] { index_close(a->index, AccessShareLock); });
                return;  // too many leaves to list: read in full
            }
            if (null || n == 0) q.leaves = 0;
            q.opno = pg_call([&] { return get_opfamily_member(family, type, type, BTEqualStrategyNumber); });
            q.strategy = BTEqualStrategyNumber;
            q.subtype = type;
            q.collation =
                raw == TEXTOID || raw == VARCHAROID ? a->index->rd_indcollation[q.index_column - 1] : InvalidOid;
        } else {
            Oid left, right;
            pg_call([&] { get_op_opfamily_properties(q.opno, family, false, &q.strategy, &left, &right); });
            q.subtype = right;
            q.arg = pg_call([&] { return ExecInitExpr(q.arg_expr, &s->css.ss.ps); });
        }
    }
    s->index_access = a;
}

bool next_index_row(ReleaseScanState* s) {
    IndexAccess* a = s->index_access;
    if (!a->keys_ready) {
        build_keys(s);
        if (!a->scan && !a->empty) {
            a->scan = index_beginscan(s->source, a->index, s->css.ss.ps.state->es_snapshot, a->count, 0);
        }
        if (a->scan && !a->empty) index_rescan(a->scan, a->keys, a->count, nullptr, 0);
    }
    if (a->empty) return false;
    return index_getnext_slot(a->scan, ForwardScanDirection, s->source_slot);
}

void rescan_index_access(ReleaseScanState* s) {
    if (s->index_access) s->index_access->keys_ready = false;  // parameters may have changed
}

void end_index_access(ReleaseScanState* s) {
    IndexAccess* a = s->index_access;
    if (!a) return;
    if (a->scan) index_endscan(a->scan);
    a->scan = nullptr;
    if (a->index) index_close(a->index, AccessShareLock);
    a->index = nullptr;
    s->index_access = nullptr;
}

void explain_index_access(ReleaseScanState* s, List* ancestors, ExplainState* es) {
    IndexAccess* a = s->index_access;
    if (!a) return;
    ExplainPropertyText("Source Index", a->name, es);
    List* context = set_deparse_context_plan(es->deparse_cxt, s->css.ss.ps.plan, ancestors);
    StringInfoData text;
    initStringInfo(&text);
    for (int i = 0; i < a->count; ++i) {
        const IndexQual& q = a->quals[i];
        char* arg =
            deparse_expression(reinterpret_cast<Node*>(q.arg_expr), context, list_length(es->rtable) > 1, false);
        if (i) appendStringInfoString(&text, " AND ");
        if (q.kind == kScalar)
            appendStringInfo(&text, "(%s %s %s)", quote_identifier(q.column), get_opname(q.opno), arg);
        else if (q.kind == kArray)
            appendStringInfo(&text, "(%s %s ANY (%s))", quote_identifier(q.column), get_opname(q.opno), arg);
        else appendStringInfo(&text, "(%s = ANY (leaves under %s))", quote_identifier(q.column), arg);
    }
    ExplainPropertyText("Index Cond", text.data, es);
}

}  // namespace privrisk::pg
