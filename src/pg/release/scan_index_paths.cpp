// Planning of index paths under a release scan (scan_index.hpp).
//
// A qual on the release is pushed to an index of the source only when, on the
// raw column, it selects exactly the rows it selects on the released one:
//  - on a column released as it is (same value, same type), a btree operator of
//    the index's opfamily with the index's collation, against an expression that
//    reads nothing of this row (a constant, a parameter, another FROM item's column);
//  - on a column released at one level of a tree hierarchy in every row, equality
//    (or = ANY) of the label with a constant, under a deterministic collation:
//    the raw column is then one of the leaves under that label.
// Never on a hidden, conditionally disclosed or pseudonymized column: the index
// would read rows by values the release does not show. The index runs only its
// opclass's own operators (installed by a superuser), so no function of the
// reader sees a raw value; the quals themselves still run above the scan.
//
// Costs come from PostgreSQL's own index costing, on a planner root made for the
// source alone (as plan_create_index_workers does), so the source's statistics
// and indexes decide between the index and the full (parallel) scan.
#include "release/scan_index.hpp"

#include <optional>

#include "common/custom_path.hpp"
#include "common/guard.hpp"
#include "hierarchy/hierarchy_catalog.hpp"

extern "C" {
#include "catalog/pg_am_d.h"
#include "catalog/pg_collation_d.h"
#include "catalog/pg_operator_d.h"
#include "optimizer/clauses.h"
#include "storage/lmgr.h"
#include "utils/guc.h"
#include "utils/pg_locale.h"
}

namespace privrisk::pg {
namespace {

bool index_scans_setting = true;
constexpr std::size_t kMaxLeaves = 10000;  // a label with more is read in full

// A rule condition that is a constant: TRUE discloses every row (the rule never
// applies), FALSE or NULL none (it applies to every row).
std::optional<bool> constant_condition(const std::string& tree) {
    // Only a constant's tree is parsed: every other condition is conditional, and
    // parsing one costs more than the rest of the column's classification.
    if (tree.rfind("{CONST ", 0) != 0) return std::nullopt;
    return pg_call([&]() -> std::optional<bool> {
        Node* n = static_cast<Node*>(stringToNode(tree.c_str()));
        if (!n || !IsA(n, Const) || reinterpret_cast<Const*>(n)->consttype != BOOLOID) return std::nullopt;
        auto* c = reinterpret_cast<Const*>(n);
        return !c->constisnull && DatumGetBool(c->constvalue);
    });
}

// The source types a label's leaves are read back into without a parser error:
// their canonical text is checked in scan_index_exec.cpp.
bool label_type(Oid type) {
    return type == TEXTOID || type == VARCHAROID || type == INT2OID || type == INT4OID || type == INT8OID;
}

}  // namespace

IndexableColumn indexable_column(const Policy& policy, const ReleasedColumn& col) {
    IndexableColumn c{col.name, col.attno, ColumnAccess::None, 0, col.hierarchy};
    if (col.pseudonymized) return c;
    int level = 0;
    for (int r : col.rules) {
        const PolicyRule& rule = policy.rules[r];
        std::optional<bool> discloses = constant_condition(rule.condition_tree);
        if (!discloses) return c;  // conditional: rows differ
        if (*discloses) continue;
        if (rule.op == DisclosureOp::Pseudonymize) return c;
        int raised = rule.op == DisclosureOp::Hide ? col.height : rule.level;
        level = std::max(level, raised);
    }
    if (level >= col.height) return c;  // ⊥ in every row
    if (col.hierarchy.empty()) {
        c.access = ColumnAccess::AsIs;
        return c;
    }
    if (!label_type(col.source_type)) return c;
    const Hierarchy& h = cached_hierarchy(col.hierarchy);
    if (!h.lists_leaves()) return c;  // intervals, prefixes, dates: not listed (docs/release.md)
    c.access = ColumnAccess::Label;
    c.level = level;
    return c;
}

// A leaf's text as a raw value of `type` (text, varchar, int2/4/8), in the
// current memory context; false when no raw value prints as it.
static bool leaf_datum(std::string_view leaf, Oid type, Datum* out) {
    if (type == TEXTOID || type == VARCHAROID) {
        *out = pg_call(
            [&] { return PointerGetDatum(cstring_to_text_with_len(leaf.data(), static_cast<int>(leaf.size()))); });
        return true;
    }
    // Integers: a raw value prints as [-]digits without leading zeros, within its type's range;
    // a leaf written otherwise is no raw value's text, so leaving it out loses no row.
    const bool negative = !leaf.empty() && leaf[0] == '-';
    const std::string_view digits = leaf.substr(negative ? 1 : 0);
    if (digits.empty() || digits.size() > 19 || (digits[0] == '0' && (digits.size() > 1 || negative))) return false;
    uint64 magnitude = 0;
    for (char ch : digits) {
        if (ch < '0' || ch > '9') return false;
        magnitude = magnitude * 10 + static_cast<uint64>(ch - '0');  // 19 digits fit in uint64
    }
    const uint64 limit = type == INT2OID ? 32767 : type == INT4OID ? 2147483647 : PG_INT64_MAX;
    if (magnitude > limit + (negative ? 1 : 0)) return false;
    const int64 v = negative ? static_cast<int64>(0 - magnitude) : static_cast<int64>(magnitude);
    *out = type == INT2OID   ? Int16GetDatum(static_cast<int16>(v))
           : type == INT4OID ? Int32GetDatum(static_cast<int32>(v))
                             : Int64GetDatum(v);
    return true;
}

bool label_leaves(const Hierarchy& h, int level, Datum labels, bool array, Oid type, Datum* out, int* n) {
    std::vector<std::string> names;
    if (!array) {
        names.emplace_back(pg_call([&] { return static_cast<const char*>(TextDatumGetCString(labels)); }));
    } else {
        Datum* items;
        bool* nulls;
        int count;
        pg_call([&] {
            deconstruct_array(DatumGetArrayTypeP(labels), TEXTOID, -1, false, TYPALIGN_INT, &items, &nulls, &count);
        });
        for (int i = 0; i < count; ++i)
            if (!nulls[i])
                names.emplace_back(pg_call([&] { return static_cast<const char*>(TextDatumGetCString(items[i])); }));
    }
    std::vector<Datum> datums;
    for (const std::string& label : names) {
        auto leaves = h.leaves_at(label, level, kMaxLeaves);
        if (!leaves) return false;
        for (const std::string& leaf : *leaves) {
            Datum d;
            if (leaf_datum(leaf, type, &d)) datums.push_back(d);
        }
    }
    *n = static_cast<int>(datums.size());
    *out = pg_call([&] {
        int16 typlen;
        bool byval;
        char align;
        get_typlenbyvalalign(type, &typlen, &byval, &align);
        return PointerGetDatum(
            construct_array(datums.data(), static_cast<int>(datums.size()), type, typlen, byval, align));
    });
    return true;
}

void define_release_index_setting() {
    DefineCustomBoolVariable(
        "privrisk.release_index_scans",
        "Lets a release scan read its source through an index for quals that are exact on raw values.",
        "Off: every release scan reads its whole source (the reference an index path is compared with).",
        &index_scans_setting, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
}

bool release_index_scans() { return index_scans_setting; }

}  // namespace privrisk::pg

namespace privrisk::pg {
namespace {

// What the planner knows of each release column (by its number in the release).
struct ColumnPlan {
    AttrNumber attno;  // in the source; 0 when the column is not indexable
    ColumnAccess access;
    int level;
    const Hierarchy* hierarchy;  // Label: valid to the end of the transaction
    Oid type;                    // the source column's
    int32 typmod;
    Oid collation;
};

// A qual of the release matched to a source column: `var op arg`.
struct Matched {
    RestrictInfo* rinfo;
    int kind;           // kScalar, kArray (as is); kLabel, kLabels (a label, a list of labels)
    AttrNumber column;  // the release's
    Oid opno;           // as is: the operator with the column on its left
    Expr* arg;          // the other side
    Oid collation;      // the qual's input collation
    Relids outer;       // other FROM items the arg reads (NULL: a constant or a parameter)
};
enum { kScalar = 0, kArray = 1, kLabel = 2, kLabels = 3 };

Node* strip(Node* n) {
    while (n && IsA(n, RelabelType)) n = reinterpret_cast<Node*>(reinterpret_cast<RelabelType*>(n)->arg);
    return n;
}

// The release column `n` is, or 0.
AttrNumber release_var(Node* n, Index relid) {
    n = strip(n);
    if (!n || !IsA(n, Var)) return 0;
    Var* v = reinterpret_cast<Var*>(n);
    return v->varno == static_cast<int>(relid) && v->varlevelsup == 0 && v->varattno > 0 ? v->varattno : 0;
}

// An argument the index may be given: reads nothing of this row, nothing volatile.
bool usable_argument(PlannerInfo* root, Node* arg, Index relid, Relids* outer) {
    if (contain_volatile_functions(arg)) return false;
    Relids varnos = pull_varnos(root, arg);
    if (bms_is_member(relid, varnos)) return false;
    *outer = varnos;
    return true;
}

bool match_qual(PlannerInfo* root, RestrictInfo* rinfo, Index relid, const std::vector<ColumnPlan>& columns,
                Matched* m) {
    Node* clause = reinterpret_cast<Node*>(rinfo->clause);
    *m = Matched{rinfo, kScalar, 0, InvalidOid, nullptr, InvalidOid, nullptr};
    if (IsA(clause, OpExpr)) {
        auto* op = reinterpret_cast<OpExpr*>(clause);
        if (list_length(op->args) != 2) return false;
        Node* left = static_cast<Node*>(linitial(op->args));
        Node* right = static_cast<Node*>(lsecond(op->args));
        m->opno = op->opno;
        if (AttrNumber k = release_var(left, relid)) {
            m->column = k;
            m->arg = reinterpret_cast<Expr*>(right);
        } else if (AttrNumber j = release_var(right, relid)) {
            m->column = j;
            m->arg = reinterpret_cast<Expr*>(left);
            m->opno = get_commutator(op->opno);
            if (!OidIsValid(m->opno)) return false;
        } else {
            return false;
        }
        m->collation = op->inputcollid;
    } else if (IsA(clause, ScalarArrayOpExpr)) {
        auto* op = reinterpret_cast<ScalarArrayOpExpr*>(clause);
        if (!op->useOr || list_length(op->args) != 2) return false;
        m->column = release_var(static_cast<Node*>(linitial(op->args)), relid);
        if (!m->column) return false;
        m->kind = kArray;
        m->opno = op->opno;
        m->arg = static_cast<Expr*>(lsecond(op->args));
        m->collation = op->inputcollid;
    } else {
        return false;
    }
    if (m->column >= static_cast<AttrNumber>(columns.size())) return false;
    const ColumnPlan& c = columns[m->column];
    if (c.access == ColumnAccess::None) return false;
    if (!usable_argument(root, reinterpret_cast<Node*>(m->arg), relid, &m->outer)) return false;
    if (c.access == ColumnAccess::Label) {
        // Equality of labels with constants, compared bytewise.
        if (m->opno != TextEqualOperator || !IsA(m->arg, Const)) return false;
        if (OidIsValid(m->collation) && !get_collation_isdeterministic(m->collation)) return false;
        m->kind = m->kind == kArray ? kLabels : kLabel;
    }
    return true;
}

// The leaves under the constant label(s) of `m` as raw values, in an array of the
// source's type; NULL when they cannot be listed (too many, not a tree).
Const* leaf_array(const Matched& m, const ColumnPlan& c) {
    auto* arg = reinterpret_cast<Const*>(m.arg);
    Datum leaves = 0;
    int n = 0;
    bool listed = true;
    if (arg->constisnull) {
        leaves = PointerGetDatum(construct_empty_array(c.type));
    } else {
        guarded([&] {
            listed = label_leaves(*c.hierarchy, c.level, arg->constvalue, m.kind == kLabels, c.type, &leaves, &n);
        });
    }
    if (!listed) return nullptr;
    return makeConst(get_array_type(c.type), -1, InvalidOid, -1, leaves, false, false);
}

}  // namespace
}  // namespace privrisk::pg

namespace privrisk::pg {
namespace {

// A planner root for the source alone, whose statistics and indexes cost the
// index paths (as plan_create_index_workers makes one). The source is locked.
RelOptInfo* source_rel(Oid source, PlannerInfo** out) {
    Query* query = makeNode(Query);
    query->commandType = CMD_SELECT;
    PlannerGlobal* glob = makeNode(PlannerGlobal);
    PlannerInfo* root = makeNode(PlannerInfo);
    root->parse = query;
    root->glob = glob;
    root->query_level = 1;
    root->planner_cxt = CurrentMemoryContext;
    root->wt_param_id = -1;
    RangeTblEntry* rte = makeNode(RangeTblEntry);
    rte->rtekind = RTE_RELATION;
    rte->relid = source;
    rte->relkind = get_rel_relkind(source);  // a table or a materialized view
    rte->rellockmode = AccessShareLock;
    rte->inFromCl = true;
    query->rtable = list_make1(rte);
    setup_simple_rel_arrays(root);
    *out = root;
    return build_simple_rel(root, 1, nullptr);
}

// The qual `m` on the source's column, for costing: a column of another FROM
// item is an unknown parameter there; labels are their leaves.
Expr* source_qual(const Matched& m, const ColumnPlan& c, Const* leaves) {
    Var* var = makeVar(1, c.attno, c.type, c.typmod, c.collation, 0);
    Expr* arg = m.arg;
    if (m.outer) {
        Param* p = makeNode(Param);
        p->paramkind = PARAM_EXEC;
        p->paramid = 0;
        p->paramtype = exprType(reinterpret_cast<Node*>(arg));
        p->paramtypmod = exprTypmod(reinterpret_cast<Node*>(arg));
        p->paramcollid = exprCollation(reinterpret_cast<Node*>(arg));
        p->location = -1;
        arg = reinterpret_cast<Expr*>(p);
    }
    if (m.kind == kScalar)
        return make_opclause(m.opno, BOOLOID, false, reinterpret_cast<Expr*>(var), arg, InvalidOid, m.collation);
    ScalarArrayOpExpr* sa = makeNode(ScalarArrayOpExpr);
    sa->useOr = true;
    sa->inputcollid = m.collation;
    sa->location = -1;
    if (m.kind == kArray) {
        sa->opno = m.opno;
        sa->args = list_make2(var, arg);
    } else {
        sa->opno = c.type == TEXTOID || c.type == VARCHAROID
                       ? TextEqualOperator
                       : get_opfamily_member(INTEGER_BTREE_FAM_OID, c.type, c.type, BTEqualStrategyNumber);
        sa->inputcollid = c.type == TEXTOID || c.type == VARCHAROID ? c.collation : InvalidOid;
        sa->args = list_make2(var, leaves);
    }
    sa->opfuncid = get_opcode(sa->opno);
    return reinterpret_cast<Expr*>(sa);
}

// Index column `i` of `index` can apply `m` (on source column `c`): its strategy, else 0.
int index_strategy(IndexOptInfo* index, int i, const Matched& m, const ColumnPlan& c) {
    if (index->indexkeys[i] != c.attno) return 0;
    Oid family = index->opfamily[i], type = index->opcintype[i], collation = index->indexcollations[i];
    if (m.kind == kLabel || m.kind == kLabels) {
        // Leaves are compared for equality in the index: bytewise for texts.
        if (OidIsValid(collation) && !get_collation_isdeterministic(collation)) return 0;
        Oid eq = get_opfamily_member(family, type, type, BTEqualStrategyNumber);
        bool text = c.type == TEXTOID || c.type == VARCHAROID;
        return OidIsValid(eq) && (text ? type == TEXTOID : type == c.type) ? BTEqualStrategyNumber : 0;
    }
    int strategy;
    Oid left, right;
    if (!op_in_opfamily(m.opno, family)) return 0;
    get_op_opfamily_properties(m.opno, family, false, &strategy, &left, &right);
    if (left != type) return 0;
    if (OidIsValid(collation) && collation != m.collation) return 0;
    return strategy;
}

struct Candidate {
    IndexOptInfo* index;
    List* matched;  // Matched*, each with its index column in `columns`
    List* index_columns;
    double startup, total, rows;
};

// The cheapest index over quals `quals` (Matched*), costed on the source's root.
bool best_index(PlannerInfo* sroot, RelOptInfo* srel, List* quals, const std::vector<ColumnPlan>& columns,
                double loop_count, Candidate* best) {
    bool found = false;
    ListCell* lc;
    foreach (lc, srel->indexlist) {
        IndexOptInfo* index = lfirst_node(IndexOptInfo, lc);
        if (index->relam != BTREE_AM_OID || index->indpred != NIL || !index->amhasgettuple) continue;
        List *clauses = NIL, *matched = NIL, *index_columns = NIL, *source_quals = NIL;
        for (int i = 0; i < index->nkeycolumns; ++i) {
            IndexClause* ic = nullptr;
            ListCell* q;
            foreach (q, quals) {
                auto* m = static_cast<Matched*>(lfirst(q));
                const ColumnPlan& c = columns[m->column];
                if (!index_strategy(index, i, *m, c)) continue;
                Const* leaves = nullptr;
                if (m->kind == kLabel || m->kind == kLabels) {
                    leaves = leaf_array(*m, c);
                    if (!leaves) continue;
                }
                Expr* qual = source_qual(*m, c, leaves);
                RestrictInfo* ri = make_simple_restrictinfo(sroot, qual);
                if (!ic) {
                    ic = makeNode(IndexClause);
                    ic->rinfo = ri;
                    ic->lossy = false;
                    ic->indexcol = i;
                }
                ic->indexquals = lappend(ic->indexquals, ri);
                source_quals = lappend(source_quals, qual);
                matched = lappend(matched, m);
                index_columns = lappend_int(index_columns, i + 1);
            }
            if (ic) clauses = lappend(clauses, ic);
        }
        if (!clauses) continue;
        IndexPath* path = create_index_path(sroot, index, clauses, NIL, NIL, NIL, ForwardScanDirection, false, nullptr,
                                            loop_count, false);
        double rows = clamp_row_est(srel->tuples * clauselist_selectivity(sroot, source_quals, 1, JOIN_INNER, nullptr));
        if (!found || path->path.total_cost < best->total) {
            *best = Candidate{index, matched, index_columns, path->path.startup_cost, path->path.total_cost, rows};
            found = true;
        }
    }
    return found;
}

// What the plan keeps of the chosen index: its OID and name, then per qual
// [kind, index column, strategy or 0, operator, source attno, level, collation]
// and the release column's name; the arguments separately.
List* access_list(const Candidate& c, const std::vector<ColumnPlan>& columns, RangeTblEntry* rte, List** args) {
    List* access =
        list_make2(makeString(psprintf("%u", c.index->indexoid)), makeString(get_rel_name(c.index->indexoid)));
    *args = NIL;
    ListCell *lm, *li;
    forboth(lm, c.matched, li, c.index_columns) {
        auto* m = static_cast<Matched*>(lfirst(lm));
        const ColumnPlan& col = columns[m->column];
        List* qual = list_make5(makeInteger(m->kind), makeInteger(lfirst_int(li)),
                                makeInteger(static_cast<int>(m->opno)), makeInteger(col.attno), makeInteger(col.level));
        qual = lappend(qual, makeInteger(static_cast<int>(m->collation)));
        qual = lappend(qual, makeString(pstrdup(strVal(list_nth(rte->eref->colnames, m->column - 1)))));
        access = lappend(access, qual);
        *args = lappend(*args, copyObjectImpl(m->arg));
    }
    return access;
}

double outer_rows(PlannerInfo* root, Relids outer) {
    double rows = 1;
    for (int i = -1; (i = bms_next_member(outer, i)) >= 0;)
        if (i < root->simple_rel_array_size && root->simple_rel_array[i]) rows *= root->simple_rel_array[i]->rows;
    return rows > 1 ? rows : 1;
}

CustomPath* index_path(RelOptInfo* rel, const Candidate& c, List* access, List* args, ParamPathInfo* param, double rows,
                       double per_row, const CustomPathMethods* methods) {
    CustomPath* path = new_custom_path(rel, param, rel->consider_parallel, 0, methods);
    path->path.rows = rows;
    double target = rel->reltarget->cost.per_tuple * rows;
    path->path.startup_cost = c.startup + rel->baserestrictcost.startup + rel->reltarget->cost.startup;
    path->path.total_cost =
        path->path.startup_cost + (c.total - c.startup) + c.rows * (per_row + rel->baserestrictcost.per_tuple) + target;
    path->custom_private = list_make2(access, args);
    return path;
}

struct EcArg {
    const std::vector<ColumnPlan>* columns;
};

bool ec_matches_column(PlannerInfo*, RelOptInfo* rel, EquivalenceClass*, EquivalenceMember* em, void* arg) {
    AttrNumber k = release_var(reinterpret_cast<Node*>(em->em_expr), rel->relid);
    const auto* columns = static_cast<EcArg*>(arg)->columns;
    return k > 0 && k < static_cast<AttrNumber>(columns->size()) && (*columns)[k].access == ColumnAccess::AsIs;
}

void plan_index_paths(PlannerInfo* root, RelOptInfo* rel, RangeTblEntry* rte, Oid source,
                      const std::vector<ColumnPlan>& columns, double per_row, const CustomPathMethods* methods) {
    List* restrict_quals = NIL;
    ListCell* lc;
    foreach (lc, rel->baserestrictinfo) {
        Matched* m = static_cast<Matched*>(palloc(sizeof(Matched)));
        if (match_qual(root, lfirst_node(RestrictInfo, lc), rel->relid, columns, m) && !m->outer)
            restrict_quals = lappend(restrict_quals, m);
    }
    // Join quals, from the rel's own and from equivalence classes.
    List* join_quals = NIL;
    List* join_infos = NIL;
    foreach (lc, rel->joininfo) {
        RestrictInfo* ri = lfirst_node(RestrictInfo, lc);
        if (join_clause_is_movable_to(ri, rel)) join_infos = lappend(join_infos, ri);
    }
    EcArg ec{&columns};
    if (rel->has_eclass_joins)
        join_infos =
            list_concat(join_infos, generate_implied_equalities_for_column(root, rel, ec_matches_column, &ec, nullptr));
    foreach (lc, join_infos) {
        Matched* m = static_cast<Matched*>(palloc(sizeof(Matched)));
        if (match_qual(root, lfirst_node(RestrictInfo, lc), rel->relid, columns, m) && m->outer &&
            !bms_overlap(m->outer, rel->relids))
            join_quals = lappend(join_quals, m);
    }
    if (!restrict_quals && !join_quals) return;

    LockRelationOid(source, AccessShareLock);  // held to the end of the transaction, as the planner's own
    root->glob->relationOids = lappend_oid(root->glob->relationOids, source);  // an index made or dropped replans
    PlannerInfo* sroot;
    RelOptInfo* srel = source_rel(source, &sroot);
    if (!srel->indexlist) return;

    Candidate best;
    if (restrict_quals && best_index(sroot, srel, restrict_quals, columns, 1, &best)) {
        // The release's row estimate from the source's statistics of the pushed quals.
        double rows = clamp_row_est(std::min(rel->rows, best.rows));
        rel->rows = rows;
        List* args;
        List* access = access_list(best, columns, rte, &args);
        add_path(rel, &index_path(rel, best, access, args, nullptr, rows, per_row, methods)->path);
    }
    // Parameterized by each other FROM item (set of items) a join qual reads.
    List* outers = NIL;
    foreach (lc, join_quals) {
        Relids outer = static_cast<Matched*>(lfirst(lc))->outer;
        bool seen = false;
        ListCell* o;
        foreach (o, outers) seen |= bms_equal(static_cast<Relids>(lfirst(o)), outer);
        if (!seen) outers = lappend(outers, outer);
    }
    foreach (lc, outers) {
        Relids outer = static_cast<Relids>(lfirst(lc));
        List* quals = list_copy(restrict_quals);
        ListCell* q;
        foreach (q, join_quals)
            if (bms_equal(static_cast<Matched*>(lfirst(q))->outer, outer)) quals = lappend(quals, lfirst(q));
        double loops = outer_rows(root, outer);
        if (!best_index(sroot, srel, quals, columns, loops, &best)) continue;
        ParamPathInfo* param = get_baserel_parampathinfo(root, rel, outer);
        // Per loop, the rows the index finds: the function's own estimate knows nothing of them.
        param->ppi_rows = clamp_row_est(std::min(param->ppi_rows, best.rows));
        List* args;
        List* access = access_list(best, columns, rte, &args);
        add_path(rel, &index_path(rel, best, access, args, param, param->ppi_rows, per_row, methods)->path);
    }
}

}  // namespace

void add_release_index_paths(PlannerInfo* root, RelOptInfo* rel, Oid source,
                             const std::vector<IndexableColumn>& columns, double per_row,
                             const CustomPathMethods* methods) {
    if (!index_scans_setting) return;
    RangeTblEntry* rte = planner_rt_fetch(rel->relid, root);
    const int count = list_length(rte->eref->colnames);
    std::vector<ColumnPlan> plan(count + 1, ColumnPlan{0, ColumnAccess::None, 0, nullptr, InvalidOid, -1, InvalidOid});
    for (int k = 1; k <= count; ++k) {
        std::string name(
            pg_call([&] { return static_cast<const char*>(strVal(list_nth(rte->eref->colnames, k - 1))); }));
        for (const IndexableColumn& c : columns) {
            if (c.name != name || c.access == ColumnAccess::None) continue;
            ColumnPlan& p = plan[k];
            p.attno = c.attno;
            p.access = c.access;
            p.level = c.level;
            if (c.access == ColumnAccess::Label) p.hierarchy = &cached_hierarchy(c.hierarchy);
            const AttrNumber attno = c.attno;
            pg_call([&] { get_atttypetypmodcoll(source, attno, &p.type, &p.typmod, &p.collation); });
        }
    }
    pg_call([&] { plan_index_paths(root, rel, rte, source, plan, per_row, methods); });
}

}  // namespace privrisk::pg
