// How many parallel workers a read of a whole table gets when privrisk runs the
// read itself (its own ParallelContext), decided as PostgreSQL plans a parallel
// sequential scan of that table.
#pragma once

#include "common/postgres.hpp"

namespace privrisk::pg {

// The workers for a parallel read of table `relid`: as compute_parallel_worker()
// does for a heap scan (its size, min_parallel_table_scan_size, the table's
// parallel_workers, max_parallel_workers_per_gather), and unless the table's
// parallel_workers says otherwise, one process per CPU at most; 0 for a table that
// is not a plain heap table or materialized view, a temporary table, or a call
// already in parallel mode.
int parallel_scan_workers(Oid relid);

}  // namespace privrisk::pg
