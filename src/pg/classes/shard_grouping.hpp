// The analyst's own GROUP BY over shards, planned as Custom Scan (PrivriskShardGrouping)
// (docs/scale-out.md). PostgreSQL 15 sends no partial aggregate through postgres_fdw,
// so a query such as
//   SELECT privrisk.hist(s) FROM sharded GROUP BY privrisk.gen(age, 'age', 2), sex
// over a table with foreign partitions would bring every row to the coordinator
// whenever the class key does not hold the partition key. The planner hook adds a
// path that sends each leaf its own grouped query (gen() through hierarchies pinned
// for its server, hist(), count()), which postgres_fdw ships whole, and merges the
// classes here with hist_merge and sum: classes cross the network, not rows.
#pragma once

#include <vector>

#include "classes/class_query.hpp"
#include "common/postgres.hpp"
#include "information/value_counts.hpp"

namespace privrisk::pg {

constexpr const char* kShardGroupingName = "PrivriskShardGrouping";

// What the plan keeps in custom_private, in this order, with the relation's Vars
// numbered 1 (as deparse_context_for names them): the source (an OID Const), the
// group keys, the aggregates (Aggrefs), the source's restriction clauses, the
// columns grouped or counted (Vars), the leaves the planner kept (OIDs) and each
// aggregate's kind (ShardAggregate::code, an integer list).
enum ShardGroupingPrivate {
    kGroupedSource,
    kGroupKeys,
    kGroupAggregates,
    kGroupQuals,
    kGroupColumns,
    kGroupLeaves,
    kGroupKinds
};

// How an aggregate the path serves runs on the leaves and is merged here: count()
// (summed), hist() (hist_merge), or an entropy of the information wing, whose leaves
// send their counts (value_counts) and whose measure is taken here from the merged ones.
struct ShardAggregate {
    enum Kind { Count, Hist, Entropy } kind;
    EntropyMeasure measure;
    bool bits;
    int code() const { return kind * 16 + static_cast<int>(measure) * 2 + (bits ? 1 : 0); }
    static ShardAggregate of_code(int c) {
        return {static_cast<Kind>(c / 16), static_cast<EntropyMeasure>(c % 16 / 2), c % 2 == 1};
    }
};

// `leaves` (OIDs of `relid`'s leaves) as shards that group `columns` (its Vars) as here,
// as choose_read decides (read_choice.hpp); none when they are not read over shards.
std::vector<Shard> grouping_leaves(Oid relid, List* columns, List* leaves);

// The scan's execution methods (shard_grouping_scan.cpp).
extern const CustomScanMethods shard_grouping_methods;

// Registers the scan's methods and the planner hook; called once from _PG_init.
void register_shard_grouping();

}  // namespace privrisk::pg
