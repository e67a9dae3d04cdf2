// The classes of a release as one query: GROUP BY the generalized
// quasi-identifiers with hist() of the sensitive column. Over a partitioned
// source with foreign partitions (shards), each partition gets its own grouped
// query, which postgres_fdw runs on its server (the IMMUTABLE gen() through a
// pinned hierarchy and hist() are shipped), and the coordinator merges the
// classes with hist_merge: classes cross the network, not rows
// (docs/scale-out.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/source_columns.hpp"

namespace privrisk::pg {

// A quasi-identifier as released: a column, and for a generalized one its
// hierarchy and level (level 0 with a hierarchy: the value, checked against it).
struct ClassColumn {
    SourceColumn column;
    std::optional<std::string> hierarchy;
    int level;
};

// Checks the quasi-identifiers, hierarchies and levels of an analysis the way
// every function names them (a column listed twice, a level without a
// hierarchy, a level outside the hierarchy) and resolves the columns.
std::vector<ClassColumn> class_columns(const SourceRelation& source,
                                       const std::vector<std::optional<std::string>>& quasi_identifiers,
                                       const std::vector<std::optional<std::string>>& hierarchies,
                                       const std::vector<long>& levels);

// A leaf partition of a source and the foreign server it lives on (empty: here).
struct Shard {
    std::string qualified;
    std::string server;
};

// The leaf partitions of `relid` when it is partitioned, at least one leaf is
// a foreign table, reading the leaves one by one gives what reading the source
// gives the caller (SELECT on every leaf, no row-level security on the source
// or a leaf), and grouping on the shards gives exactly the classes grouping
// here gives. Otherwise none: the source is read whole, here. A shard
// groups with SQL equality and writes values as text in postgres_fdw's session
// (UTC, ISO dates), so every column used (keys and sensitive) must be text,
// varchar, int2, int4, int8 or boolean, under a deterministic collation: other
// types' equality is coarser than their text (0 = -0, 1.0 = 1.00) or their text
// depends on the session.
// Called by choose_read only (read_choice.hpp), which decides how every class read reads.
// `leaves`: the leaves to read (an OID list, those the planner kept), else every leaf.
std::vector<Shard> class_shards(Oid relid, const std::vector<SourceColumn>& columns, List* leaves = nullptr);

// `leaves` of `relid` under class_shards' conditions on the source (partitioned, a foreign
// leaf, each leaf readable by the caller — SELECT, USAGE on its schema, no row-level
// security); none otherwise. source_shards: every leaf.
std::vector<Shard> leaf_shards(Oid relid, List* leaves);
std::vector<Shard> source_shards(Oid relid);

// Whether a column of `relid` of `type` groups on a shard as here (class_shards' condition on
// each column): one of canonical_text_sql's types, under a deterministic collation.
bool groups_on_shards(Oid relid, AttrNumber attnum, Oid type);

// The types canonical_text_sql writes: text, varchar, int2, int4, int8, boolean.
bool canonical_text_ships(Oid type);

// A sensitive column's canonical text (value_text.hpp) as an IMMUTABLE SQL expression
// that postgres_fdw ships and any privrisk version runs: the column itself for text and
// varchar, ::text for integers, 't'/'f' for a boolean; "" for another type, which only
// C++ reads by its canonical text (class_shards ships none of them).
std::string canonical_text_sql(const SourceColumn& column);

// The class key of each column as SQL: the column, or gen() of it. Pinned:
// through the hierarchies pinned for `server` (a server with another
// definition errors, naming both), so postgres_fdw may ship it.
std::vector<std::string> class_key_expressions(const std::vector<ClassColumn>& columns, const std::string& server,
                                               bool pinned);

// SELECT k0, …, k(n-1), h — one row per class, h its privrisk.hist (of the
// sensitive column, or hist(*) without one). Per shard when `shards` is not
// empty, else one GROUP BY over the source.
std::string class_query(const SourceRelation& source, const std::vector<Shard>& shards,
                        const std::vector<ClassColumn>& columns, const std::optional<SourceColumn>& sensitive);

// The columns as they are (level 0), without their hierarchies.
std::vector<SourceColumn> plain_columns(const std::vector<ClassColumn>& columns);

// One class_tally per part (a shard, or the source itself with server ""): SELECT
// privrisk.class_tally(<the sensitive value's canonical text, or NULL>, k0, …) FROM part,
// as a UNION ALL, one row per part with its classes inside. The keys are columns as they
// are (level 0: the class reader generalizes each distinct value itself, never gen() per
// row). The sensitive column, if any, must have a canonical text in SQL (canonical_text_sql).
std::string class_tally_query(const std::vector<Shard>& parts, const std::vector<SourceColumn>& keys,
                              const std::optional<SourceColumn>& sensitive);

// Each shard's level-0 classes, not merged: the UNION ALL of their grouped queries (k0, …, h),
// for a reader that adds up a class's parts itself (the class reader's fallback, audit()'s spill).
std::string shard_classes_query(const std::vector<Shard>& shards, const std::vector<SourceColumn>& keys,
                                const std::optional<SourceColumn>& sensitive);

}  // namespace privrisk::pg
