// One pass over some columns of a relation with every distinct value coded
// once: the caller turns a value's text into its own code when the value is
// first met (on_value), then sees the rows as codes (on_rows). The relation is
// read straight from its heap when the caller may read it whole and no
// row-level security applies, else through SQL with the caller's rights; or,
// over shards, its classes are read from a grouped query (class_query), each
// with its count. Used by dp_release, whose draws depend on the counts only.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/source_columns.hpp"

namespace privrisk::pg {

struct CodedScan {
    Oid relid;
    std::vector<SourceColumn> columns;
    // code for a new distinct value of column j (nullopt: NULL)
    std::function<uint32_t(std::size_t, std::optional<std::string_view>)> on_value;
    // `rows` rows with these values (1 at a time when rows are read)
    std::function<void(const uint32_t* codes, int64_t rows)> on_rows;
};

// Returns the number of rows read, from the heap or through SQL as `how` says
// (choose_read's). CHECK_FOR_INTERRUPTS every 4,096 rows.
int64_t run_coded_scan(const SourceRelation& source, CodedScan& scan, const SourceRows& how);

// The same over the rows of `class_sql` (a class_query: keys of `key_types`,
// then a privrisk.hist whose size is the class's rows). Returns the rows the
// classes count.
int64_t run_coded_classes(const std::string& class_sql, const std::vector<Oid>& key_types, CodedScan& scan);

}  // namespace privrisk::pg
