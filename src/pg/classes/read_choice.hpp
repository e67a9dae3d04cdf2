// Where a read of a source's classes takes its rows (docs/scale-out.md), decided
// here for every reader — audit(), the class reader behind search(), lattice()
// and audit() with hierarchies, the tallies, classes() and the DP releases — and
// nowhere else (test/architecture/check_read_choice.py):
// - shards: a source with foreign partitions whose servers can send their classes;
// - heap: a table the caller may read whole (no row-level security, no inheritance
//   children), read from its heap when the reader needs its columns as they are;
// - workers: the parallel workers of that heap read, as many as the planner would use;
// - tally_pays: through SQL, whether parallel workers' class tallies pay (few classes per row).
// What each reader then does with the rows (tally, code, aggregate, spill) is its own.
#pragma once

#include <vector>

#include "classes/class_query.hpp"
#include "common/source_columns.hpp"

namespace privrisk::pg {

// What the reader can take.
struct ReadNeeds {
    bool over_shards = true;  // classes sent by each shard
    bool as_stored = true;    // the columns as they are (no SQL expression): a heap read serves it
    bool parallel = true;     // a parallel heap read (workers key a sensitive column by its canonical text)
    bool tally = false;       // class tallies of parallel workers through SQL
    List* leaves = nullptr;   // over shards: these leaves (an OID list, those the planner kept), not every leaf
};

struct ReadChoice {
    std::vector<Shard> shards;                  // not empty: each shard sends its classes
    bool heap = false;                          // from the heap, not through SQL
    int workers = 0;                            // > 0: parallel workers read the heap
    bool tally_pays = false;                    // asked for (ReadNeeds::tally) and no parallel heap read
    SourceRows rows() const { return {heap}; }  // a serial read: heap or SQL
};

// `columns`: every column read, the class keys first (`keys` of them).
ReadChoice choose_read(Oid relid, const std::vector<SourceColumn>& columns, std::size_t keys, const ReadNeeds& needs);
// The same for class keys (with their hierarchies and levels) and a sensitive column.
ReadChoice choose_read(Oid relid, const std::vector<ClassColumn>& keys, const std::optional<SourceColumn>& sensitive,
                       const ReadNeeds& needs);

}  // namespace privrisk::pg
