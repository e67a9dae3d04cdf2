// The classes of a table read by parallel workers and the leader, merged in
// parallel too (docs/scale-out.md). PostgreSQL's parallel aggregation merges
// every worker's partial state in the leader, one after another: with a class
// for every dozen rows that merge costs as much as the scan. Here each process
// tallies the blocks it is given, splits its classes into tasks by their
// values' bytes, and every process then merges whole tasks, so a class is
// merged once, by one process; the leader only puts the merged parts together.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "classes/class_runs.hpp"
#include "classes/contingency_table.hpp"
#include "common/postgres.hpp"
#include "common/value_text.hpp"

namespace privrisk::pg {

// The workers a parallel read of table `relid` gets, as PostgreSQL plans a
// parallel sequential scan of it (its size, min_parallel_table_scan_size, the
// table's parallel_workers, max_parallel_workers_per_gather), and unless the
// table's parallel_workers says otherwise, one process per CPU at most; 0 where a
// parallel read cannot be used: a key read through an output function, or
// whose type's output function is not marked parallel safe, a sensitive column
// (`sensitive`, 0 for none) whose canonical text takes an output function not
// marked parallel safe, a table that is not a plain heap table, a temporary
// table, or a call already in parallel mode.
int parallel_class_workers(Oid relid, const std::vector<AttrNumber>& keys, AttrNumber sensitive);

struct ParallelClasses {
    ContingencyTable table;
    int launched = 0;      // workers that were started
    Size leader_peak = 0;  // the most memory the leader's own tally held
};

// The classes of the rows of `relid` (a table the caller may read whole, with
// no row-level security) keyed by the binary forms of `keys`, with the counts
// of the text column `sensitive` (0: none). Each process's memory is bounded by
// privrisk.audit_memory_limit; past it, an ERROR with SQLSTATE 54000, so run it
// in a subtransaction that can fall back.
ParallelClasses parallel_class_table(Oid relid, const std::vector<AttrNumber>& keys, AttrNumber sensitive, int workers);

// The same read for the distinct tuples of `keys` with their counts (a
// dictionary for identification), each process bounded by `limit` bytes:
// on_tuples(n) once, then on_tuple(key, count) for each, the key as in a class
// run (per column a u32 length, UINT32_MAX for NULL, then the binary form's
// bytes). Returns the workers started.
int parallel_tuple_table(Oid relid, const std::vector<AttrNumber>& keys, int workers, Size limit,
                         const std::function<void(uint64_t)>& on_tuples,
                         const std::function<void(std::string_view, int64_t)>& on_tuple);

// The same read for the classes of `keys` with their keys and the counts of the
// text column `sensitive` (0: none), for callers that roll classes up by their
// values (search's level-0 classes), each process bounded by `limit` bytes:
// on_values(the sensitive values in canonical order) once, then on_class(key,
// pairs of (value index, count) in index order) for each class. Returns the
// workers started.
int parallel_keyed_classes(
    Oid relid, const std::vector<AttrNumber>& keys, AttrNumber sensitive, int workers, Size limit,
    const std::function<void(const std::vector<std::optional<std::string>>&)>& on_values,
    const std::function<void(std::string_view, const ContingencyTable::Pair*, std::size_t)>& on_class);

// Whether a caller may fall back from a parallel read's failure to its serial
// read: the read's memory limit (54000; each process holds its row buffers
// before its first row) or a resource, shared memory first (class 53).
bool parallel_read_may_fall_back(int sqlstate);

// A key value's text, as value_text() makes it from the datum: the bytes
// themselves for text, varchar and char(n) (the key is the text), else the
// by-value datum's text through `text`, allocated in `context`.
std::string_view key_value_text(ValueText* text, bool by_value, std::string_view bytes, MemoryContext context);

}  // namespace privrisk::pg
