// Runs a query through SPI and hands each result row to C++ as it is produced
// (a DestReceiver, so nothing is materialized). The row callback may throw; the
// scan then stops and the exception is rethrown once SPI has returned.
#pragma once

#include <exception>
#include <functional>
#include <string>
#include <vector>

#include "common/spi.hpp"

namespace privrisk::pg {

// Calls on_row(values, nulls) for every row of `sql` (prepared with $n args,
// parallel plans allowed). Must run inside an Spi scope.
void stream_rows(const std::string& sql, const std::vector<SpiArg>& args,
                 const std::function<void(const Datum*, const bool*)>& on_row);

// Calls on_row(values, nulls) for every row of the table or materialized view
// `relid`, values being `columns` in that order, read straight from the heap under
// the active snapshot: no executor, no projection. Checks no privilege: the
// caller has (the reader may SELECT the table and no row-level security applies).
// With `parallel`, only the blocks this process is given of a parallel scan.
void scan_table_rows(Oid relid, const std::vector<AttrNumber>& columns,
                     const std::function<void(const Datum*, const bool*)>& on_row,
                     ParallelTableScanDesc parallel = nullptr);

}  // namespace privrisk::pg
