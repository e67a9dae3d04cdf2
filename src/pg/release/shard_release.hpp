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
#include "release/release_shape.hpp"

namespace privrisk::pg {

// The digest of what a policy releases: its name, its rules (with privacy by
// default's, in any order), the digests of their hierarchies and the released
// columns' names and types; for a shard's pin, also `source`, the schema.table
// its policy reads. Equal on servers that hold the same policy.
std::string policy_digest(const Policy& policy_with_default_rules, const std::string& source = "");

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

// The coordinator's pins in a shard's release scan: each restriction clause
// privrisk.release_is_pinned(…, constant pin) is taken out of `restrictinfos`
// (the scan checks it once, in verify_pins) and its pin returned, as String nodes.
List* take_pins(List** restrictinfos);

// Checked when the scan of `policy`'s release begins, before any row or rule:
// each pin names this policy, its digest is this policy's, and the reader may
// not read the source (else a rule's error would carry a value to the
// coordinator).
// `stmt` (the query) may read no relation but views: the release and nothing else.
void verify_pins(const Policy& policy_with_default_rules, List* pins, PlannedStmt* stmt);

// The error for a pin evaluated anywhere but in its release scan: it ran on the
// coordinator, or the shard's relation is not the policy's release view.
[[noreturn]] void fail_unbound_pin(const std::string& pin);

// Installs the planner hook that refuses a plan evaluating a pin on rows
// (release_is_pinned left outside a release scan).
void register_pin_check();

}  // namespace privrisk::pg
