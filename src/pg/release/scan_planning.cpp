// privrisk.release(policy) in FROM, planned as Custom Scan (PrivriskRelease):
// the planner hook replaces the function scan of release() with a scan of the
// policy's source that applies every rule per row and streams the released
// rows; it is parallel-aware (a parallel heap scan of the source).
#include "release/release_scan.hpp"
#include "common/custom_path.hpp"
#include "common/privrisk_function.hpp"
#include "release/policy_access.hpp"
#include "release/release_shape.hpp"
#include "release/scan_index.hpp"
#include "release/suppression_catalog.hpp"
#include "release/scan_suppression.hpp"
#include "release/scan_state.hpp"
#include "release/shard_pins.hpp"
#include "release/view_grants.hpp"

namespace privrisk::pg {
namespace {

// The columns of release() the plan reads — its target and its quals — as
// pull_varattnos numbers them (offset by FirstLowInvalidHeapAttributeNumber).
Bitmapset* columns_read(RelOptInfo* rel) {
    Bitmapset* read = nullptr;
    pull_varattnos(reinterpret_cast<Node*>(rel->reltarget->exprs), rel->relid, &read);
    ListCell* lc;
    foreach (lc, rel->baserestrictinfo)
        pull_varattnos(reinterpret_cast<Node*>(lfirst_node(RestrictInfo, lc)->clause), rel->relid, &read);
    return read;
}

// The scan tuple holds only the columns the plan reads (its target list and
// quals), so a rule runs only where its column is read: count(*) runs none.
Plan* plan_release(PlannerInfo* root, RelOptInfo* rel, CustomPath* path, List*, List* clauses, List*) {
    RangeTblEntry* rte = planner_rt_fetch(rel->relid, root);
    auto* function = static_cast<RangeTblFunction*>(linitial(rte->functions));
    auto* call = reinterpret_cast<FuncExpr*>(function->funcexpr);
    // The path's own target, not a physical tlist of every column.
    List* tlist = make_tlist_from_pathtarget(path->path.pathtarget);
    List* pins = take_pins(&clauses);  // a coordinator's pins: checked once, before the first row
    List* quals = extract_actual_clauses(clauses, false);
    Bitmapset* read = columns_read(rel);
    List* scan_tlist = NIL;
    for (int k = -1; (k = bms_next_member(read, k)) >= 0;) {
        AttrNumber attno = k + FirstLowInvalidHeapAttributeNumber;
        if (attno <= 0)
            ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                            errmsg("privrisk.release(): a whole-row reference to the release is not supported"),
                            errhint("Name its columns, or read it through a release view.")));
        Var* var = makeVar(rel->relid, attno, list_nth_oid(function->funccoltypes, attno - 1),
                           list_nth_int(function->funccoltypmods, attno - 1),
                           list_nth_oid(function->funccolcollations, attno - 1), 0);
        char* name = strVal(list_nth(rte->eref->colnames, attno - 1));
        scan_tlist = lappend(scan_tlist,
                             makeTargetEntry(reinterpret_cast<Expr*>(var), list_length(scan_tlist) + 1, name, false));
    }
    CustomScan* scan = makeNode(CustomScan);
    scan->scan.plan.targetlist = tlist;
    scan->scan.plan.qual = quals;
    scan->scan.scanrelid = 0;
    scan->flags = path->flags;
    scan->custom_scan_tlist = scan_tlist;
    // The policy, and the release view that holds this call (its mark), if any.
    scan->custom_exprs = list_make1(copyObjectImpl(linitial(call->args)));
    if (Oid view = marked_view(call->args); OidIsValid(view))
        scan->custom_exprs = lappend(
            scan->custom_exprs, makeConst(OIDOID, -1, InvalidOid, sizeof(Oid), ObjectIdGetDatum(view), false, true));
    // An index access (scan_index.hpp): its quals' other sides follow the policy and mark.
    List *access = NIL, *args = NIL;
    if (path->custom_private) {
        access = static_cast<List*>(linitial(path->custom_private));
        args = static_cast<List*>(lsecond(path->custom_private));
    }
    const int first_arg = list_length(scan->custom_exprs);
    scan->custom_exprs = list_concat(scan->custom_exprs, args);
    scan->custom_private = list_make3(pins, access, makeInteger(first_arg));
    scan->methods = &release_scan_methods;
    return &scan->scan.plan;
}

const CustomPathMethods path_methods = {kReleaseScanName, plan_release, nullptr};

// What the planner knows of a policy's source when the policy is a constant.
struct SourceSize {
    bool known;
    bool partitioned;  // read serially, partition after partition
    double pages;
    double tuples;
    std::vector<std::string> rule_columns;  // the column of each rule
    Oid source = InvalidOid;
    bool plain = false;                    // a table without children: it may be read through an index
    std::vector<IndexableColumn> columns;  // how each release column shows its source column
    bool suppressing = false;              // the policy suppresses records: a full read counts the source first
};

// The size of the source of policy `name` (read through `view`, if valid), read from the catalog.
SourceSize source_size(const std::string& name, Oid view) {
    SourceSize size{false, false, 0, 0, {}};
    // Nothing of a policy the caller may not read shapes the plan (the scan
    // reports it when it starts, the same way for missing and unreadable).
    std::optional<Policy> p = find_readable_policy(name, view);
    if (!p) return size;
    add_default_rules(*p);
    Oid source = p->source;
    if (!pg_call([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(source)); })) return size;
    pg_call([&] {
        Relation rel = table_open(source, AccessShareLock);
        char kind = rel->rd_rel->relkind;
        size.partitioned = read_by_tables(rel);
        List* parts = size.partitioned ? leaf_partitions(rel) : list_make1_oid(source);
        size.known = kind == RELKIND_RELATION || kind == RELKIND_MATVIEW || size.partitioned;
        size.plain = (kind == RELKIND_RELATION || kind == RELKIND_MATVIEW) && !size.partitioned;
        ListCell* lc;
        foreach (lc, size.known ? parts : NIL) {
            Relation part = lfirst_oid(lc) == source ? rel : table_open(lfirst_oid(lc), NoLock);
            BlockNumber pages;
            double tuples, allvisfrac;
            estimate_rel_size(part, nullptr, &pages, &tuples, &allvisfrac);
            size.pages += pages;
            size.tuples += tuples;
            if (part != rel) table_close(part, NoLock);
        }
        table_close(rel, AccessShareLock);
    });
    for (const PolicyRule& rule : p->rules) size.rule_columns.push_back(rule.column);
    size.source = source;
    size.suppressing = find_suppression(p->name).has_value();
    if (size.plain && release_index_scans())
        for (const ReleasedColumn& c : release_shape(*p)) size.columns.push_back(indexable_column(*p, c));
    return size;
}

// One read of the policy per planning: release()'s row estimate (its support
// function) and its paths (the hook) are made in the same planning, keyed by
// its PlannerGlobal, and share what was read. The entry lives in the memory the
// planning runs in and is forgotten (and destroyed) with it, so a later
// planning at the same address never sees it.
struct PlannedPolicy {
    PlannerGlobal* glob;
    std::string name;
    Oid view;
    SourceSize size;
    MemoryContextCallback forget;
};
PlannedPolicy* planned = nullptr;

void forget_planned(void* arg) {
    auto* p = static_cast<PlannedPolicy*>(arg);
    if (planned == p) planned = nullptr;
    p->~PlannedPolicy();
}

// The source's size when the policy is a constant (a parameter's is unknown
// at planning), read once per planning of `root` (NULL outside one).
SourceSize planned_source_size(PlannerInfo* root, List* args) {
    Node* policy = static_cast<Node*>(linitial(args));
    if (!IsA(policy, Const) || reinterpret_cast<Const*>(policy)->constisnull) return SourceSize{false, false, 0, 0, {}};
    Datum value = reinterpret_cast<Const*>(policy)->constvalue;
    std::string name(pg_call([&] { return text_to_cstring(DatumGetTextPP(value)); }));
    const Oid view = marked_view(args);
    if (!root) return source_size(name, view);
    if (planned && planned->glob == root->glob && planned->name == name && planned->view == view) return planned->size;
    SourceSize size = source_size(name, view);
    MemoryContext context = CurrentMemoryContext;
    PlannedPolicy* p = construct_in<PlannedPolicy>(context, PlannedPolicy{root->glob, name, view, size, {}});
    p->forget.func = forget_planned;
    p->forget.arg = p;
    pg_call([&] { MemoryContextRegisterResetCallback(context, &p->forget); });
    planned = p;
    return size;
}

Oid release_function() {
    static const Oid argtypes[1] = {TEXTOID};
    return privrisk_function("release", 1, argtypes);
}

void add_release_paths(PlannerInfo* root, RelOptInfo* rel, RangeTblEntry* rte) {
    auto* function = static_cast<RangeTblFunction*>(linitial(rte->functions));
    auto* call = reinterpret_cast<FuncExpr*>(function->funcexpr);  // the hook checked: release(), alone
    if (!bms_is_empty(rel->lateral_relids))
        fail(ErrorKind::InvalidParameter, "privrisk.release(): the policy may not refer to other FROM items");
    Node* policy = reinterpret_cast<Node*>(linitial(call->args));
    // A constant, or a parameter of a prepared statement: anything else (a
    // subquery, a volatile expression) is refused before it is planned further.
    if (!IsA(policy, Const) && !(IsA(policy, Param) && reinterpret_cast<Param*>(policy)->paramkind == PARAM_EXTERN))
        fail(ErrorKind::InvalidParameter,
             "privrisk.release(): the policy must be a constant (or a parameter), not an expression or a subquery");
    SourceSize size = planned_source_size(root, call->args);
    // Only the rules of columns the plan reads run (count(*) runs none).
    Bitmapset* read = pg_call([&] { return columns_read(rel); });
    int rules = 0;
    for (int k = -1; (k = bms_next_member(read, k)) >= 0;) {
        int attno = k + FirstLowInvalidHeapAttributeNumber;
        if (attno <= 0 || attno > list_length(rte->eref->colnames)) continue;
        std::string column = strVal(list_nth(rte->eref->colnames, attno - 1));
        for (const std::string& c : size.rule_columns) rules += c == column;
    }

    rel->pathlist = NIL;
    rel->partial_pathlist = NIL;
    // Index paths first: the source's statistics of the quals they push may lower rel->rows.
    if (size.plain && !size.columns.empty())
        add_release_index_paths(root, rel, size.source, size.columns, cpu_tuple_cost + rules * cpu_operator_cost,
                                &path_methods);
    // Cost as a sequential scan of the source plus the rules per row.
    double pages = size.known ? size.pages : 10;
    double tuples = size.known ? size.tuples : rel->tuples;
    double cpu_per_tuple = cpu_tuple_cost + rules * cpu_operator_cost + rel->baserestrictcost.per_tuple;
    double startup = rel->baserestrictcost.startup + rel->reltarget->cost.startup;
    // With record suppression, no row comes before the count of the whole source (in
    // each participant of a parallel read): a read of the source, its rules, a lookup per row.
    if (size.suppressing)
        startup += seq_page_cost * pages + (cpu_tuple_cost + (rules + 1) * cpu_operator_cost) * tuples;
    double target = rel->reltarget->cost.per_tuple * rel->rows;
    auto make_path = [&](int workers) {
        CustomPath* path = new_custom_path(rel, nullptr, rel->consider_parallel, workers, &path_methods);
        double divisor = 1;
        if (workers > 0) {
            divisor = workers;
            double leader = 1.0 - 0.3 * workers;  // as costsize.c's get_parallel_divisor
            if (parallel_leader_participation && leader > 0) divisor += leader;
        }
        path->path.rows = clamp_row_est(rel->rows / divisor);
        // A full read is a sequential scan of the source: enable_seqscan = off discourages it, as it does theirs.
        const double disabled = enable_seqscan ? 0 : disable_cost;
        path->path.startup_cost = startup + disabled;
        path->path.total_cost =
            disabled + startup + seq_page_cost * pages + (cpu_per_tuple * tuples + target) / divisor;
        return &path->path;
    };
    pg_call([&] {
        add_path(rel, make_path(0));
        if (rel->consider_parallel && !size.partitioned) {  // a partitioned source is read serially
            int workers = compute_parallel_worker(rel, pages, -1, max_parallel_workers_per_gather);
            if (workers > 0) add_partial_path(rel, make_path(workers));
        }
    });
}

set_rel_pathlist_hook_type previous_pathlist_hook = nullptr;

void release_pathlist_hook(PlannerInfo* root, RelOptInfo* rel, Index rti, RangeTblEntry* rte) {
    if (previous_pathlist_hook) previous_pathlist_hook(root, rel, rti, rte);
    if (rte->rtekind != RTE_FUNCTION || IS_DUMMY_REL(rel)) return;
    Oid release = release_function();
    bool found = false;
    ListCell* lc;
    foreach (lc, rte->functions) {
        Node* e = lfirst_node(RangeTblFunction, lc)->funcexpr;
        if (IsA(e, FuncExpr) && OidIsValid(release) && reinterpret_cast<FuncExpr*>(e)->funcid == release) found = true;
    }
    if (!found) return;
    if (list_length(rte->functions) != 1 || rte->funcordinality)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("privrisk.release() must be the only function of its FROM item, without WITH "
                               "ORDINALITY")));
    guarded([&] { add_release_paths(root, rel, rte); });
}

}  // namespace

double release_rows_estimate(PlannerInfo* root, List* args) {
    SourceSize size = planned_source_size(root, args);
    return !size.known ? -1 : size.tuples > 1 ? size.tuples : 1;
}

void register_release_scan() {
    RegisterCustomScanMethods(&release_scan_methods);
    previous_pathlist_hook = set_rel_pathlist_hook;
    set_rel_pathlist_hook = release_pathlist_hook;
    register_pin_check();  // a pin outside its release scan is refused when planned
    define_release_index_setting();
    define_suppression_setting();
}

}  // namespace privrisk::pg