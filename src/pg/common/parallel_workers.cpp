#include "common/parallel_workers.hpp"

#include <unistd.h>

#include "common/guard.hpp"

extern "C" {
#include "access/parallel.h"
#include "access/table.h"
#include "optimizer/paths.h"
#include "postmaster/bgworker_internals.h"
#include "storage/bufmgr.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
}

namespace privrisk::pg {

int parallel_scan_workers(Oid relid) {
    return pg_call([&] {
        if (IsInParallelMode() || max_parallel_workers_per_gather <= 0 || max_parallel_workers <= 0) return 0;
        if (get_rel_relkind(relid) != RELKIND_RELATION && get_rel_relkind(relid) != RELKIND_MATVIEW) return 0;
        Relation r = table_open(relid, AccessShareLock);
        // A temporary table's pages are in this backend's local buffers: no worker can read them.
        const bool temporary = r->rd_rel->relpersistence == RELPERSISTENCE_TEMP;
        int workers = RelationGetParallelWorkers(r, -1);
        BlockNumber blocks = RelationGetNumberOfBlocks(r);
        table_close(r, AccessShareLock);
        if (temporary) return 0;
        const bool chosen = workers >= 0;  // the table's parallel_workers
        if (!chosen) {                     // as compute_parallel_worker() does for a heap scan
            if (blocks < static_cast<BlockNumber>(min_parallel_table_scan_size)) return 0;
            double threshold = Max(min_parallel_table_scan_size, 1);
            workers = 1;
            while (blocks >= threshold * 3 && workers < MAX_PARALLEL_WORKER_LIMIT) {
                ++workers;
                threshold *= 3;
            }
        }
        workers = Min(workers, max_parallel_workers_per_gather);
        // Every process's share is merged, so a process more than the CPUs only adds
        // merging: unless the table says how many, one process per CPU at most.
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        if (!chosen && cpus > 0) workers = static_cast<int>(Min(static_cast<long>(workers), cpus - 1));
        return workers;
    });
}

}  // namespace privrisk::pg
