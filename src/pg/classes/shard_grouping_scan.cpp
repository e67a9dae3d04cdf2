// Execution of Custom Scan (PrivriskShardGrouping) (shard_grouping.hpp): each leaf's
// grouped query, written when the scan runs (hierarchies pinned as they are then),
// the classes merged by one query here and kept in a tuplestore for the plan above.
#include <string>
#include <vector>

#include "classes/class_query.hpp"
#include "classes/shard_grouping.hpp"
#include "common/args.hpp"
#include "common/guard.hpp"
#include "common/row_stream.hpp"
#include "common/spi.hpp"
#include "common/sql_text.hpp"
#include "hierarchy/pinned_hierarchy_type.hpp"

extern "C" {
#include "utils/guc.h"
#include "utils/ruleutils.h"
#include "utils/tuplestore.h"
}

namespace privrisk::pg {
namespace {

struct GroupingState {
    CustomScanState css;
    Tuplestorestate* classes;  // the merged classes, read on the first call
    TupleTableSlot* stored;    // a slot the tuplestore fills
    int64 received;            // rows the leaves sent: their classes
};

// The queries of one scan: one per leaf (its server, empty for a table here), and the merge.
struct GroupingSql {
    std::vector<Shard> leaves;
    std::vector<std::string> queries;
    std::string merged;
};

Node* private_item(const CustomScan* plan, ShardGroupingPrivate item) {
    return static_cast<Node*>(list_nth(plan->custom_private, item));
}

std::string column_sql(Oid relid, Node* e) {
    if (IsA(e, RelabelType)) e = reinterpret_cast<Node*>(reinterpret_cast<RelabelType*>(e)->arg);
    AttrNumber attno = reinterpret_cast<Var*>(e)->varattno;
    return sql_identifier(pg_call([&] { return get_attname(relid, attno, false); }));
}

std::string const_text(Node* e) {
    return pg_call([&] { return TextDatumGetCString(reinterpret_cast<Const*>(e)->constvalue); });
}

// A key as `server` computes it: a hierarchy named by text is sent pinned to its
// definition here (class_key_expressions), a pin checked here first.
std::string key_sql(Oid relid, Node* key, const std::string& server) {
    if (!IsA(key, FuncExpr)) return column_sql(relid, key);
    List* args = reinterpret_cast<FuncExpr*>(key)->args;
    Node* value = static_cast<Node*>(linitial(args));
    auto* hierarchy = static_cast<Const*>(lsecond(args));
    const int level = DatumGetInt32(static_cast<Const*>(lthird(args))->constvalue);
    const std::string column = column_sql(relid, value);
    if (hierarchy->consttype == TEXTOID) {
        SourceColumn c{"", column, 0, InvalidOid};
        return class_key_expressions({ClassColumn{c, const_text(reinterpret_cast<Node*>(hierarchy)), level}}, server,
                                     !server.empty())
            .front();
    }
    return "privrisk.gen(" + column + ", " +
           sql_literal(repinned_hierarchy_text(const_text(reinterpret_cast<Node*>(hierarchy)), server)) +
           "::privrisk.pinned_hierarchy, " + std::to_string(level) + ")";
}

// The kind of aggregate `i` (shard_grouping.hpp).
ShardAggregate kind_of(const CustomScan* plan, int i) {
    return ShardAggregate::of_code(list_nth_int(reinterpret_cast<List*>(private_item(plan, kGroupKinds)), i));
}

// An aggregate on a leaf: count() and hist() as written, an entropy as its counts.
std::string aggregate_sql(Oid relid, Aggref* a, ShardAggregate kind) {
    std::string arguments;
    ListCell* lc;
    foreach (lc, a->args)
        arguments += (arguments.empty() ? "" : ", ") +
                     column_sql(relid, reinterpret_cast<Node*>(lfirst_node(TargetEntry, lc)->expr));
    if (arguments.empty()) arguments = "*";
    switch (kind.kind) {
        case ShardAggregate::Count:
            return "pg_catalog.count(" + arguments + ")";
        case ShardAggregate::Hist:
            return "privrisk.hist(" + arguments + ")";
        default:
            return "privrisk.value_counts(" + arguments + ")";
    }
}

// How the leaves' results of an aggregate are merged here. A leaf sends NULL for a hist()
// or counts of no row: left out, so that no row at all gives NULL, as one server's does.
std::string merge_sql(ShardAggregate kind, const std::string& column) {
    const std::string filter = " FILTER (WHERE " + column + " IS NOT NULL)";
    switch (kind.kind) {
        case ShardAggregate::Count:
            return "COALESCE(pg_catalog.sum(" + column + "), 0)::pg_catalog.int8";
        case ShardAggregate::Hist:
            return "privrisk.hist_merge(" + column + ")" + filter;
        default:
            return "privrisk.value_counts_merge(" + column + ")" + filter;
    }
}

// An entropy's merged counts (value_counts_merge) as the aggregate's value; NULL for none.
Datum entropy_of(Datum counts, bool* null, ShardAggregate kind) {
    if (*null) return 0;
    std::string_view bytes = text_view(counts);
    ValueCounts merged(std::pmr::new_delete_resource(), !bytes.empty() && bytes[0] != 0);
    merged.add_serialized(bytes);
    if (merged.rows() == 0) {
        *null = true;
        return 0;
    }
    return Float8GetDatum(entropy_measure(merged, kind.measure, kind.bits));
}

// The source's restrictions as SQL over its column names, every other name qualified,
// constants written so they read back the same (postgres_fdw's settings for its queries).
std::string where_sql(Oid relid, List* quals) {
    if (quals == NIL) return "";
    char* text = nullptr;
    with_pinned_search_path([&] {
        int level = NewGUCNestLevel();
        set_config_option("extra_float_digits", "3", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
        set_config_option("datestyle", "ISO", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
        set_config_option("intervalstyle", "postgres", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
        text = deparse_expression(reinterpret_cast<Node*>(make_ands_explicit(quals)),
                                  deparse_context_for(get_rel_name(relid), relid), false, false);
        AtEOXact_GUC(true, level);
    });
    return " WHERE " + std::string(text);
}

GroupingSql grouping_sql(const CustomScan* plan) {
    const Oid relid = DatumGetObjectId(reinterpret_cast<Const*>(private_item(plan, kGroupedSource))->constvalue);
    List* keys = reinterpret_cast<List*>(private_item(plan, kGroupKeys));
    List* aggregates = reinterpret_cast<List*>(private_item(plan, kGroupAggregates));
    const std::string where = where_sql(relid, reinterpret_cast<List*>(private_item(plan, kGroupQuals)));
    GroupingSql sql;
    // The leaves the planner kept, as they are now; without a foreign one left, the source itself, here.
    sql.leaves = grouping_leaves(relid, reinterpret_cast<List*>(private_item(plan, kGroupColumns)),
                                 reinterpret_cast<List*>(private_item(plan, kGroupLeaves)));
    if (sql.leaves.empty()) sql.leaves.push_back(Shard{source_relation(relid).qualified, ""});
    std::string key_names, grouped;
    for (int i = 0; i < list_length(keys); ++i) {
        key_names += (i ? ", k" : "k") + std::to_string(i);
        grouped += (i ? ", " : "") + std::to_string(i + 1);
    }
    std::string names = key_names, merged = key_names;
    for (int i = 0; i < list_length(aggregates); ++i) {
        const std::string column = "a" + std::to_string(i);
        names += (names.empty() ? "" : ", ") + column;
        merged += (merged.empty() ? "" : ", ") + merge_sql(kind_of(plan, i), column);
    }
    // Without a GROUP BY (an aggregate of the whole table) each leaf sends one row.
    const std::string group_by = keys ? " GROUP BY " : "";
    std::string parts;
    for (const Shard& leaf : sql.leaves) {
        std::string select;
        ListCell* lc;
        foreach (lc, keys)
            select += (select.empty() ? "" : ", ") + key_sql(relid, static_cast<Node*>(lfirst(lc)), leaf.server);
        for (int i = 0; i < list_length(aggregates); ++i)
            select += (select.empty() ? "" : ", ") +
                      aggregate_sql(relid, static_cast<Aggref*>(list_nth(aggregates, i)), kind_of(plan, i));
        sql.queries.push_back("SELECT " + select + " FROM " + leaf.qualified + where + group_by + grouped);
        parts += (parts.empty() ? "" : " UNION ALL ") + sql.queries.back();
    }
    sql.merged = "SELECT " + merged + (merged.empty() ? "" : ", ") + "pg_catalog.count(*) FROM (" + parts + ") AS c(" +
                 names + ")" + group_by + key_names;
    return sql;
}

const CustomScan* plan_of(CustomScanState* node) { return reinterpret_cast<CustomScan*>(node->ss.ps.plan); }

void begin_grouping(CustomScanState* node, EState* estate, int) {
    auto* s = reinterpret_cast<GroupingState*>(node);
    s->classes = nullptr;
    s->received = 0;
    s->stored =
        ExecAllocTableSlot(&estate->es_tupleTable, node->ss.ss_ScanTupleSlot->tts_tupleDescriptor, &TTSOpsMinimalTuple);
}

// The leaves' classes, merged, into the tuplestore.
void read_classes(GroupingState* s) {
    GroupingSql sql = grouping_sql(plan_of(&s->css));
    TupleDesc shape = s->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor;
    const int width = shape->natts;
    s->classes = pg_call([&] {
        MemoryContext old = MemoryContextSwitchTo(s->css.ss.ps.state->es_query_cxt);
        Tuplestorestate* t = tuplestore_begin_heap(true, false, work_mem);
        MemoryContextSwitchTo(old);
        return t;
    });
    // The scan tuple's columns as the merged query gives them, but an entropy's, taken here from its counts.
    const CustomScan* plan = plan_of(&s->css);
    const int keys = list_length(reinterpret_cast<List*>(private_item(plan, kGroupKeys)));
    std::vector<ShardAggregate> kinds;
    for (int c = keys; c < width; ++c) kinds.push_back(kind_of(plan, c - keys));
    std::vector<Datum> row(width);
    std::vector<char> null(width);
    Spi spi;
    stream_rows(sql.merged, {}, [&](const Datum* values, const bool* nulls) {
        for (int c = 0; c < width; ++c) {
            row[c] = values[c];
            null[c] = nulls[c];
            if (c < keys || kinds[c - keys].kind != ShardAggregate::Entropy) continue;
            bool is_null = nulls[c];
            row[c] = entropy_of(values[c], &is_null, kinds[c - keys]);
            null[c] = is_null;
        }
        pg_call([&] { tuplestore_putvalues(s->classes, shape, row.data(), reinterpret_cast<bool*>(null.data())); });
        s->received += DatumGetInt64(values[width]);
    });
    spi.finish();
}

TupleTableSlot* next_class(ScanState* node) {
    auto* s = reinterpret_cast<GroupingState*>(node);
    if (!s->classes) guarded([&] { read_classes(s); });
    TupleTableSlot* slot = node->ss_ScanTupleSlot;
    if (!tuplestore_gettupleslot(s->classes, true, false, s->stored)) return ExecClearTuple(slot);
    return ExecCopySlot(slot, s->stored);
}

bool recheck_class(ScanState*, TupleTableSlot*) { return true; }

TupleTableSlot* exec_grouping(CustomScanState* node) { return ExecScan(&node->ss, next_class, recheck_class); }

void end_grouping(CustomScanState* node) {
    auto* s = reinterpret_cast<GroupingState*>(node);
    if (s->classes) tuplestore_end(s->classes);
    s->classes = nullptr;
}

// The classes do not depend on the plan above (no parameter reaches the leaves' queries).
void rescan_grouping(CustomScanState* node) {
    auto* s = reinterpret_cast<GroupingState*>(node);
    if (s->classes) tuplestore_rescan(s->classes);
}

// The leaves; with VERBOSE, what postgres_fdw sends each shard (its own EXPLAIN of
// the leaf's query); with ANALYZE, the rows the leaves sent.
void explain_grouping(CustomScanState* node, List*, ExplainState* es) {
    auto* s = reinterpret_cast<GroupingState*>(node);
    guarded([&] {
        GroupingSql sql = grouping_sql(plan_of(node));
        std::vector<std::string> lines;  // copied out of SPI's memory, which spi.finish() frees
        if (es->verbose) {
            Spi spi;
            for (std::size_t i = 0; i < sql.leaves.size(); ++i) {
                if (sql.leaves[i].server.empty()) continue;
                const std::string explain = "EXPLAIN (VERBOSE, COSTS OFF) " + sql.queries[i];
                uint64 rows = spi.run(explain.c_str(), {}, false);  // EXPLAIN is not read-only to SPI
                for (uint64 r = 0; r < rows; ++r) {
                    std::string line = spi.string(r, 1);
                    std::size_t at = line.find("Remote SQL: ");
                    if (at != std::string::npos) lines.push_back(line.substr(at + 12));
                }
            }
            spi.finish();
        }
        List* remote = NIL;
        for (const std::string& line : lines) remote = pg_call([&] { return lappend(remote, pstrdup(line.c_str())); });
        const long leaves = static_cast<long>(sql.leaves.size());
        pg_call([&] {
            ExplainPropertyInteger("Leaves", nullptr, leaves, es);
            if (es->verbose && es->format == EXPLAIN_FORMAT_TEXT) {  // a line per shard, as postgres_fdw's
                ListCell* lc;
                foreach (lc, remote) ExplainPropertyText("Remote SQL", static_cast<char*>(lfirst(lc)), es);
            } else if (es->verbose) {
                ExplainPropertyList("Remote SQL", remote, es);
            }
            if (es->analyze) ExplainPropertyInteger("Rows Received", nullptr, s->received, es);
        });
    });
}

const CustomExecMethods exec_methods = {
    kShardGroupingName,
    begin_grouping,
    exec_grouping,
    end_grouping,
    rescan_grouping,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    nullptr,
    explain_grouping,
};

Node* create_grouping_state(CustomScan*) {
    auto* s = reinterpret_cast<GroupingState*>(newNode(sizeof(GroupingState), T_CustomScanState));
    s->css.methods = &exec_methods;
    return reinterpret_cast<Node*>(s);
}

}  // namespace

const CustomScanMethods shard_grouping_methods = {kShardGroupingName, create_grouping_state};

}  // namespace privrisk::pg
