// Reading class tallies (class_tally's values: a shard's classes, or a source's
// read through SQL by parallel workers) into one contingency table. Each tally
// stands for a run of classes sorted by their values' texts
// (ClassAggregator::serialize_tally), so the tallies of every shard merge in one
// linear pass (class_runs.hpp), whatever binary forms their columns have. (The
// class reader codes a tally's classes itself: coded_classes.cpp.)
#pragma once

#include <functional>
#include <memory_resource>
#include <string>

#include "classes/class_runs.hpp"

namespace privrisk::pg {

struct MergedTallies {
    RunValues values;       // every tally's sensitive values, in canonical order
    std::pmr::string part;  // the classes, as merge_class_runs puts them
};

// Runs `sql` (class_tally_query: a row per tally) and merges its tallies of `width`
// key columns into a part of a contingency table (merge_class_runs).
// Each tally is rebuilt into its run as it arrives; the runs, then the merged part, are
// held in `memory`: past its limit, MemoryLimitExceeded. at_peak() is called when both
// are (for a caller that reports its peak). A tally of another width or version is an
// error. Runs SQL: call it inside an Spi scope, and in a subtransaction where a shard's
// own limit (54000) has a fallback.
MergedTallies merge_class_tallies(const std::string& sql, std::size_t width, std::pmr::memory_resource* memory,
                                  const std::function<void()>& at_peak = nullptr);

}  // namespace privrisk::pg
