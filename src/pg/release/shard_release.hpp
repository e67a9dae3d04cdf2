// Releases over shards (docs/scale-out.md). The rules run where the rows are:
// each shard holds the same policy on its table and a release view of it (made
// by the steward with the same statements), and the coordinator's release view
// reads the shards' release views through postgres_fdw, so only released values
// cross the network. The coordinator's view pins the policy by the digest of
// its definition; a shard whose policy differs fails the query, naming the
// policy and the server.
#pragma once

#include <string>
#include <vector>

#include "release/policy_catalog.hpp"
#include "hierarchy/pinned_hierarchy.hpp"
#include "release/release_shape.hpp"

namespace privrisk::pg {

// The digest of what a policy releases: its name, its rules (with privacy by
// default's, in any order), the digests of their hierarchies and the released
// columns' names and types; for a shard's pin, also `source`, the schema.table
// its policy reads. Equal on servers that hold the same policy.
std::string policy_digest(const Policy& policy_with_default_rules, const std::string& source = "");
// The same for several sources at once ("" for none): the rules and columns read once.
std::vector<std::string> policy_digests(const Policy& policy_with_default_rules,
                                        const std::vector<std::string>& sources);

// The foreign partitions of `source` (a partitioned table's leaves), or none.
// A table that mixes local and foreign leaves is an error naming one of each.
struct ShardTable {
    Oid relid;
    std::string name;
    std::string server;
    std::string remote;  // schema.table the partition reads on its server
};
std::vector<ShardTable> shard_tables(Oid source, const std::string& policy);

// Creates, as the caller, one foreign table per shard reading the shard's
// release view `schema.view`, and the view `schema.view` on this server: their
// UNION ALL, each shard's rows checked by privrisk.release_is_pinned.
void create_shard_release_view(const Policy& policy, const std::vector<ReleasedColumn>& shape,
                               const std::vector<ShardTable>& shards, Oid schema, const std::string& view);

// The pin's text form is a pinned hierarchy's (name@digest@server); errors call it this.
constexpr const char* kPinnedPolicy = "pinned policy";

// The partitioned `source` has a foreign partition (it is a coordinator's table).
bool has_foreign_partitions(Oid source);

// " on server "name"", for messages about a pin.
std::string pin_where(const PinnedHierarchy& pin);

}  // namespace privrisk::pg
