// A table's distinct tuples with their counts, read by the tuple_tally
// aggregate through SQL: with the caller's rights (row-level security applies),
// by parallel workers when the planner chooses, each counting part of the table
// in C++ before the leader adds their tallies up. Identification reads both the
// released table and the dictionary this way.
#pragma once

#include <cstdint>
#include <vector>

#include "common/source_columns.hpp"
#include "classes/tuple_tally.hpp"

namespace privrisk::pg {

// Reads `columns` of `source` and hands over the tally (TupleTally::read's
// callbacks: values first, then tuples). Returns the number of rows read.
int64_t tally_table(const SourceRelation& source, const std::vector<SourceColumn>& columns,
                    const TupleTally::ValueCallback& on_value,
                    const std::function<void(const uint32_t*, int64_t)>& on_tuple,
                    const std::function<void(uint64_t)>& on_tuples = nullptr);

}  // namespace privrisk::pg
