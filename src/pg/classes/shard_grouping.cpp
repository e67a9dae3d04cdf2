// Planning of Custom Scan (PrivriskShardGrouping) (shard_grouping.hpp): which
// GROUP BY queries it serves, and its path and plan.
#include "classes/shard_grouping.hpp"

#include <cstring>

#include "classes/class_query.hpp"
#include "classes/read_choice.hpp"
#include "common/custom_path.hpp"
#include "common/error.hpp"
#include "common/spi.hpp"
#include "common/sql_text.hpp"
#include "hierarchy/pinned_hierarchy_type.hpp"
#include "common/guard.hpp"

extern "C" {
#include "catalog/dependency.h"
#include "catalog/pg_aggregate.h"
#include "commands/extension.h"
#include "optimizer/planner.h"
#include "optimizer/planmain.h"
#include "rewrite/rewriteManip.h"
#include "utils/fmgroids.h"
}

namespace privrisk::pg {
namespace {

bool shard_grouping_setting = true;  // privrisk.shard_grouping

// The grouped query as the path serves it.
struct Grouping {
    Index rti;
    Oid relid;
    Oid schema;       // privrisk's
    Oid pinned_type;  // privrisk.pinned_hierarchy
    List* keys = NIL;
    List* aggregates = NIL;
    List* columns = NIL;  // every column grouped or counted (choose_read asks whether shards group them as here)
    List* leaves = NIL;   // the leaves the planner kept (OIDs), at least one of them foreign
    List* kinds = NIL;    // per aggregate, its ShardAggregate code
    bool served = true;
};

// The name of a function of privrisk's schema; "" for any other.
const char* privrisk_name(const Grouping& g, Oid function) {
    return get_func_namespace(function) == g.schema ? get_func_name(function) : "";
}

// A column of the grouped relation, read as it is.
Var* relation_column(const Grouping& g, Node* e) {
    if (!e || !IsA(e, Var)) return nullptr;
    auto* v = reinterpret_cast<Var*>(e);
    return v->varno == static_cast<int>(g.rti) && v->varlevelsup == 0 && v->varattno > 0 ? v : nullptr;
}

// A column grouped or counted on the shards, recorded for choose_read.
bool shard_column(Grouping& g, Node* e) {
    Var* v = relation_column(g, e);
    if (v) g.columns = list_append_unique(g.columns, v);
    return v != nullptr;
}

bool non_null_const(Node* e, Oid type) {
    return e && IsA(e, Const) && !reinterpret_cast<Const*>(e)->constisnull &&
           reinterpret_cast<Const*>(e)->consttype == type;
}

// A group key the shards compute as here: a column, or gen() of one through a
// hierarchy named by a constant (a name, sent pinned, or a pin) at a constant level.
bool shippable_key(Grouping& g, Node* e) {
    if (shard_column(g, e)) return true;
    if (!IsA(e, FuncExpr)) return false;
    auto* f = reinterpret_cast<FuncExpr*>(e);
    if (list_length(f->args) != 3 || f->funcretset || std::strcmp(privrisk_name(g, f->funcid), "gen") != 0)
        return false;
    Node* value = static_cast<Node*>(linitial(f->args));
    if (IsA(value, RelabelType)) value = reinterpret_cast<Node*>(reinterpret_cast<RelabelType*>(value)->arg);
    Node* hierarchy = static_cast<Node*>(lsecond(f->args));
    return shard_column(g, value) && (non_null_const(hierarchy, TEXTOID) || non_null_const(hierarchy, g.pinned_type)) &&
           non_null_const(static_cast<Node*>(lthird(f->args)), INT4OID);
}

// The entropies the path serves, by name, with their arguments' count.
struct EntropyName {
    const char* name;
    int arguments;
    EntropyMeasure measure;
    bool bits;
};
constexpr EntropyName kEntropies[] = {
    {"entropy", 1, EntropyMeasure::Entropy, false},
    {"entropy_bits", 1, EntropyMeasure::Entropy, true},
    {"conditional_entropy", 2, EntropyMeasure::ConditionalEntropy, false},
    {"conditional_entropy_bits", 2, EntropyMeasure::ConditionalEntropy, true},
    {"mutual_information", 2, EntropyMeasure::MutualInformation, false},
    {"mutual_information_bits", 2, EntropyMeasure::MutualInformation, true},
};

// count(*), count(column), hist(*), hist(column) or an entropy of columns, plain (no
// DISTINCT, ORDER BY or FILTER): its kind, or -1. Runs inside an expression walker:
// it raises no C++ exception.
int shippable_aggregate(Grouping& g, Aggref* a) {
    if (a->aggorder || a->aggdistinct || a->aggfilter || a->agglevelsup != 0 || a->aggkind != AGGKIND_NORMAL ||
        a->aggvariadic || a->aggsplit != AGGSPLIT_SIMPLE)
        return -1;
    const int n = list_length(a->args);
    auto argument = [&](int i) { return reinterpret_cast<Node*>(list_nth_node(TargetEntry, a->args, i)->expr); };
    const ShardAggregate count{ShardAggregate::Count, EntropyMeasure::Entropy, false};
    if (a->aggfnoid == F_COUNT_) return count.code();
    if (a->aggfnoid == F_COUNT_ANY) return n == 1 && relation_column(g, argument(0)) ? count.code() : -1;
    const char* name = privrisk_name(g, a->aggfnoid);
    if (std::strcmp(name, "hist") == 0) {
        const ShardAggregate hist{ShardAggregate::Hist, EntropyMeasure::Entropy, false};
        return a->aggstar || (n == 1 && shard_column(g, argument(0))) ? hist.code() : -1;
    }
    for (const EntropyName& e : kEntropies) {
        if (n != e.arguments || std::strcmp(name, e.name) != 0) continue;
        for (int i = 0; i < n; ++i)
            if (!shard_column(g, argument(i))) return -1;
        return ShardAggregate{ShardAggregate::Entropy, e.measure, e.bits}.code();
    }
    return -1;
}

// Every expression above the grouping reads only its keys and served aggregates,
// which it collects; a column outside them (functionally dependent on a key) is not served.
bool collect_aggregates(Node* node, void* context) {
    auto* g = static_cast<Grouping*>(context);
    if (!node) return false;
    ListCell* lc;
    foreach (lc, g->keys)
        if (equal(node, lfirst(lc))) return false;
    if (IsA(node, Aggref)) {
        const int kind = shippable_aggregate(*g, reinterpret_cast<Aggref*>(node));
        if (kind < 0) {
            g->served = false;
        } else if (!list_member(g->aggregates, node)) {
            g->aggregates = lappend(g->aggregates, node);
            g->kinds = lappend_int(g->kinds, kind);
        }
        return !g->served;
    }
    if (IsA(node, Var) || IsA(node, GroupingFunc) || IsA(node, WindowFunc)) {
        g->served = false;
        return true;
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(collect_aggregates)),
                                  context);
}

// A restriction the shards apply as here: no parameter, no subquery, nothing
// volatile or session-dependent, and no system column.
bool shippable_qual_walker(Node* node, void* context) {
    if (!node) return false;
    if (IsA(node, Param) || IsA(node, SubLink) || IsA(node, SubPlan)) return true;
    if (IsA(node, Var) && !relation_column(*static_cast<Grouping*>(context), node)) return true;
    return expression_tree_walker(
        node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(shippable_qual_walker)), context);
}

bool shippable_quals(Grouping& g, List* restrictions) {
    ListCell* lc;
    foreach (lc, restrictions) {
        Node* clause = reinterpret_cast<Node*>(lfirst_node(RestrictInfo, lc)->clause);
        if (shippable_qual_walker(clause, &g) || contain_mutable_functions(clause)) return false;
    }
    return true;
}

// The leaves of `rel` the planner kept (partition pruning), into g->leaves; whether one is
// a foreign table. Only what the planner expanded and locked is read: no catalog lookup.
bool live_leaves(PlannerInfo* root, RelOptInfo* rel, Grouping* g) {
    bool foreign = false;
    for (int i = -1; (i = bms_next_member(rel->live_parts, i)) >= 0;) {
        RelOptInfo* part = rel->part_rels[i];
        if (!part || IS_DUMMY_REL(part)) continue;
        RangeTblEntry* rte = planner_rt_fetch(part->relid, root);
        if (rte->relkind == RELKIND_PARTITIONED_TABLE) {
            foreign |= live_leaves(root, part, g);
            continue;
        }
        g->leaves = lappend_oid(g->leaves, rte->relid);
        foreign |= rte->relkind == RELKIND_FOREIGN_TABLE;
    }
    return foreign;
}

// privrisk's schema and pinned_hierarchy type, when the extension is installed in this
// database (a schema of that name made by anyone else does not count).
bool extension_objects(Grouping* g) {
    const Oid extension = get_extension_oid("privrisk", true);
    g->schema = OidIsValid(extension) ? get_namespace_oid("privrisk", true) : InvalidOid;
    g->pinned_type = OidIsValid(g->schema)
                         ? GetSysCacheOid2(TYPENAMENSP, Anum_pg_type_oid, CStringGetDatum("pinned_hierarchy"),
                                           ObjectIdGetDatum(g->schema))
                         : InvalidOid;
    return OidIsValid(g->pinned_type) && getExtensionOfObject(TypeRelationId, g->pinned_type) == extension;
}

// The query, when the path serves it: one partitioned table read directly (not
// through a view, whose owner's rights the leaves' queries would not use), with
// a foreign leaf left after pruning, grouped by plain keys (or aggregated whole)
// without grouping sets or set-returning functions. The cheap tests come first: the hook sees every GROUP BY.
bool served_query(PlannerInfo* root, RelOptInfo* input, Grouping* g) {
    Query* parse = root->parse;
    if (!shard_grouping_setting || parse->commandType != CMD_SELECT || (parse->groupClause == NIL && !parse->hasAggs) ||
        parse->groupingSets != NIL || parse->hasTargetSRFs || parse->rowMarks != NIL ||
        input->reloptkind != RELOPT_BASEREL || IS_DUMMY_REL(input) || !input->part_rels)
        return false;
    RangeTblEntry* rte = planner_rt_fetch(input->relid, root);
    if (rte->rtekind != RTE_RELATION || rte->relkind != RELKIND_PARTITIONED_TABLE || !rte->inh || rte->tablesample ||
        OidIsValid(rte->checkAsUser) || rte->securityQuals != NIL)
        return false;
    g->rti = input->relid;
    g->relid = rte->relid;
    return live_leaves(root, input, g) && extension_objects(g);
}

// Each hierarchy a key names exists here, and each pin is this server's definition:
// otherwise PostgreSQL's own plan runs, and gen() fails (or not, on no row) as it would.
// Looked up in a subtransaction, which cleans up what a failed lookup left (its SPI).
bool hierarchies_hold(List* keys) {
    if (pg_call([] { return IsInParallelMode(); })) return false;  // no subtransaction there
    return in_subtransaction(ERRCODE_UNDEFINED_OBJECT, [&] {
        ListCell* lc;
        foreach (lc, keys) {
            if (!IsA(lfirst(lc), FuncExpr)) continue;
            auto* h = static_cast<Const*>(lsecond(static_cast<FuncExpr*>(lfirst(lc))->args));
            std::string named = pg_call([&] { return TextDatumGetCString(h->constvalue); });
            bool held = true;
            try {
                if (h->consttype == TEXTOID) pinned_hierarchy_text(named, "");
                else repinned_hierarchy_text(named, "");
            } catch (const Error& e) {  // missing, or another definition: raised so the subtransaction ends
                if (e.kind() != ErrorKind::UndefinedObject && e.kind() != ErrorKind::InvalidParameter) throw;
                held = false;
            }
            if (!held)
                pg_call([] { ereport(ERROR, (errcode(ERRCODE_UNDEFINED_OBJECT), errmsg("no such hierarchy"))); });
        }
    });
}

// The plan depends on the functions its WHERE calls, which setrefs does not see in
// custom_private: recorded so a cached plan is made again when one changes.
bool record_functions(Node* node, void* root) {
    if (!node) return false;
    auto* planner = static_cast<PlannerInfo*>(root);
    if (IsA(node, FuncExpr)) record_plan_function_dependency(planner, reinterpret_cast<FuncExpr*>(node)->funcid);
    if (IsA(node, OpExpr) || IsA(node, DistinctExpr) || IsA(node, NullIfExpr)) {
        set_opfuncid(reinterpret_cast<OpExpr*>(node));
        record_plan_function_dependency(planner, reinterpret_cast<OpExpr*>(node)->opfuncid);
    }
    if (IsA(node, ScalarArrayOpExpr)) {
        set_sa_opfuncid(reinterpret_cast<ScalarArrayOpExpr*>(node));
        record_plan_function_dependency(planner, reinterpret_cast<ScalarArrayOpExpr*>(node)->opfuncid);
    }
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(record_functions)),
                                  root);
}

Plan* plan_grouping(PlannerInfo* root, RelOptInfo*, CustomPath* path, List* tlist, List*, List*) {
    // path->custom_private: the relation's range table index, then custom_private's
    // items with the query's own numbering, then the HAVING clauses.
    List* p = path->custom_private;
    const int rti = intVal(linitial(p));
    List* keys = static_cast<List*>(list_nth(p, 1 + kGroupKeys));
    List* aggregates = static_cast<List*>(list_nth(p, 1 + kGroupAggregates));
    CustomScan* scan = makeNode(CustomScan);
    scan->scan.plan.targetlist = tlist;
    scan->scan.plan.qual = static_cast<List*>(copyObjectImpl(llast(p)));
    scan->scan.scanrelid = 0;
    scan->flags = path->flags;
    // The scan tuple: the keys, then the aggregates; the target list and HAVING refer to them.
    List* scan_tlist = NIL;
    ListCell* lc;
    foreach (lc, list_concat_copy(keys, aggregates))
        scan_tlist = lappend(scan_tlist, makeTargetEntry(static_cast<Expr*>(copyObjectImpl(lfirst(lc))),
                                                         list_length(scan_tlist) + 1, nullptr, false));
    scan->custom_scan_tlist = scan_tlist;
    List* kept = NIL;
    record_functions(static_cast<Node*>(list_nth(p, 1 + kGroupQuals)), root);
    for (int i = 1; i < 1 + kGroupKinds + 1; ++i) {
        Node* copy = static_cast<Node*>(copyObjectImpl(list_nth(p, i)));
        if (i != 1 + kGroupedSource && i != 1 + kGroupLeaves && i != 1 + kGroupKinds) ChangeVarNodes(copy, rti, 1, 0);
        kept = lappend(kept, copy);
    }
    scan->custom_private = kept;
    scan->methods = &shard_grouping_methods;
    return &scan->scan.plan;
}

const CustomPathMethods path_methods = {kShardGroupingName, plan_grouping, nullptr};

// The path's cost: each leaf's query (postgres_fdw's default startup and per-row
// costs), the rows read on the shards at once, and the classes they send, merged here.
Cost grouping_cost(double rows, double groups, int leaves) {
    constexpr Cost kLeafStartup = 100.0, kLeafRow = 0.01;
    return leaves * kLeafStartup + rows * cpu_operator_cost / leaves + groups * leaves * (kLeafRow + cpu_tuple_cost) +
           groups * cpu_tuple_cost;
}

void add_grouping_path(PlannerInfo* root, RelOptInfo* input, RelOptInfo* grouped, GroupPathExtraData* extra) {
    Grouping g{};
    if (grouped->pathlist == NIL || !served_query(root, input, &g)) return;
    ListCell* lc;
    foreach (lc, root->parse->groupClause) {
        Node* key =
            reinterpret_cast<Node*>(get_sortgroupclause_expr(lfirst_node(SortGroupClause, lc), root->processed_tlist));
        if (!shippable_key(g, key)) return;
        g.keys = lappend(g.keys, key);
    }
    collect_aggregates(reinterpret_cast<Node*>(grouped->reltarget->exprs), &g);
    if (g.served) collect_aggregates(extra->havingQual, &g);
    if (!g.served || !shippable_quals(g, input->baserestrictinfo) || !hierarchies_hold(g.keys)) return;
    const int leaves = static_cast<int>(grouping_leaves(g.relid, g.columns, g.leaves).size());
    if (leaves == 0) return;
    // Whether each leaf may be read is the planning role's answer: a plan made for one role is not another's.
    root->glob->dependsOnRole = true;
    List* quals = NIL;
    foreach (lc, input->baserestrictinfo) quals = lappend(quals, lfirst_node(RestrictInfo, lc)->clause);
    CustomPath* path = new_custom_path(grouped, nullptr, false, 0, &path_methods);  // not parallel safe: it runs SPI
    path->path.rows = static_cast<Path*>(linitial(grouped->pathlist))->rows;
    path->path.startup_cost = path->path.total_cost = grouping_cost(input->rows, path->path.rows, leaves);
    Const* source = makeConst(OIDOID, -1, InvalidOid, sizeof(Oid), ObjectIdGetDatum(g.relid), false, true);
    path->custom_private = list_make5(makeInteger(static_cast<int>(g.rti)), source, g.keys, g.aggregates, quals);
    path->custom_private = lappend(path->custom_private, g.columns);
    path->custom_private = lappend(path->custom_private, g.leaves);
    path->custom_private = lappend(path->custom_private, g.kinds);
    path->custom_private = lappend(path->custom_private, extra->havingQual);
    add_path(grouped, &path->path);
}

create_upper_paths_hook_type previous_upper_paths_hook = nullptr;

void shard_grouping_hook(PlannerInfo* root, UpperRelationKind stage, RelOptInfo* input, RelOptInfo* output,
                         void* extra) {
    if (previous_upper_paths_hook) previous_upper_paths_hook(root, stage, input, output, extra);
    if (stage != UPPERREL_GROUP_AGG || !extra) return;
    // No C++ object with a destructor lives in add_grouping_path: PostgreSQL is called there directly.
    guarded([&] { add_grouping_path(root, input, output, static_cast<GroupPathExtraData*>(extra)); });
}

}  // namespace

}  // namespace privrisk::pg

// gen()'s planner support function: it simplifies nothing, but a query naming gen() loads
// the module while it is planned, before its GROUP BY is, so the hook above is in place
// in a session that has not called privrisk yet.
PRIVRISK_FUNCTION(privrisk_gen_support) { PG_RETURN_POINTER(nullptr); }

namespace privrisk::pg {

std::vector<Shard> grouping_leaves(Oid relid, List* columns, List* leaves) {
    std::vector<SourceColumn> read;
    ListCell* lc;
    foreach (lc, columns) {
        auto* v = static_cast<Var*>(lfirst(lc));
        std::string name = pg_call([&] { return get_attname(relid, v->varattno, false); });
        read.push_back(SourceColumn{name, sql_identifier(name), v->varattno, v->vartype});
    }
    return choose_read(relid, read, read.size(), ReadNeeds{true, false, false, false, leaves}).shards;
}

void register_shard_grouping() {
    DefineCustomBoolVariable("privrisk.shard_grouping",
                             "Plans a GROUP BY over foreign partitions as one grouped query per shard "
                             "(Custom Scan (PrivriskShardGrouping)).",
                             "Off: PostgreSQL's own plan, which brings the rows to this server.",
                             &shard_grouping_setting, true, PGC_USERSET, 0, nullptr, nullptr, nullptr);
    RegisterCustomScanMethods(&shard_grouping_methods);
    previous_upper_paths_hook = create_upper_paths_hook;
    create_upper_paths_hook = shard_grouping_hook;
}

}  // namespace privrisk::pg
