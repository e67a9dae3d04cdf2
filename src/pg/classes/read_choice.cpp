// Where a read of a source's classes takes its rows (read_choice.hpp).
#include "classes/read_choice.hpp"

#include "classes/parallel_classes.hpp"
#include "common/error.hpp"

extern "C" {
#include "access/parallel.h"
#include "access/relation.h"
#include "catalog/pg_statistic.h"
#include "optimizer/cost.h"
#include "optimizer/paths.h"
#include "storage/bufmgr.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace privrisk::pg {
namespace {

// Whether parallel workers pay for the tallies' byte forms, when workers are
// allowed: on a table of at least three times min_parallel_table_scan_size
// (where the planner starts giving two workers) or a partitioned one, whose
// classes are few against its rows. Each worker's partial tally holds most of
// the classes and merging costs a pass over each, so past one class per 64 rows
// (estimated from the columns' statistics, as if independent; none: no) the
// serial scan is faster (docs/scale-out.md).
bool parallel_tally_pays(Oid relid, const std::vector<AttrNumber>& class_columns) {
    return pg_call([&] {
        if (max_parallel_workers_per_gather <= 0 || max_parallel_workers <= 0) return false;
        char kind = get_rel_relkind(relid);
        if (kind != RELKIND_PARTITIONED_TABLE && kind != RELKIND_RELATION && kind != RELKIND_MATVIEW) return false;
        Relation r = relation_open(relid, AccessShareLock);
        double rows = r->rd_rel->reltuples;
        BlockNumber blocks = kind == RELKIND_PARTITIONED_TABLE ? 0 : RelationGetNumberOfBlocks(r);
        relation_close(r, AccessShareLock);
        if (kind != RELKIND_PARTITIONED_TABLE && blocks < 3 * static_cast<BlockNumber>(min_parallel_table_scan_size))
            return false;
        if (rows <= 0) return false;
        double classes = 1;
        for (AttrNumber attnum : class_columns) {
            HeapTuple t = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid), Int16GetDatum(attnum),
                                          BoolGetDatum(kind == RELKIND_PARTITIONED_TABLE));
            if (!HeapTupleIsValid(t)) return false;
            double distinct = reinterpret_cast<Form_pg_statistic>(GETSTRUCT(t))->stadistinct;
            ReleaseSysCache(t);
            if (distinct == 0) return false;
            classes *= distinct < 0 ? -distinct * rows : distinct;
        }
        return classes * 64 <= rows;
    });
}

}  // namespace

ReadChoice choose_read(Oid relid, const std::vector<SourceColumn>& columns, std::size_t keys, const ReadNeeds& needs) {
    ReadChoice c;
    if (needs.over_shards) c.shards = class_shards(relid, columns, needs.leaves);
    c.heap = needs.as_stored && c.shards.empty() && readable_from_heap(relid);
    std::vector<AttrNumber> key_attnums;
    for (std::size_t j = 0; j < keys && j < columns.size(); ++j) key_attnums.push_back(columns[j].attnum);
    const AttrNumber sensitive = columns.size() > keys ? columns[keys].attnum : 0;
    if (c.heap && needs.parallel) c.workers = parallel_class_workers(relid, key_attnums, sensitive);
    c.tally_pays = needs.tally && c.workers == 0 && parallel_tally_pays(relid, key_attnums);
    return c;
}

ReadChoice choose_read(Oid relid, const std::vector<ClassColumn>& keys, const std::optional<SourceColumn>& sensitive,
                       const ReadNeeds& needs) {
    std::vector<SourceColumn> read = plain_columns(keys);
    if (sensitive) read.push_back(*sensitive);
    return choose_read(relid, read, keys.size(), needs);
}

}  // namespace privrisk::pg
