// One pass over some columns of a relation with every distinct value coded
// once: the caller turns a value's text into its own code when the value is
// first met (on_value), then sees each row as codes (on_row). The relation is
// read straight from its heap when the caller may read it whole and no
// row-level security applies, else through SQL with the caller's rights.
// Used by dp_release, which also needs each row's identity.
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
    bool with_identity = false;  // on_row gets (tableoid, ctid); the SQL path then selects them
    // code for a new distinct value of column j (nullopt: NULL)
    std::function<uint32_t(std::size_t, std::optional<std::string_view>)> on_value;
    std::function<void(const uint32_t* codes, Oid table, const ItemPointerData* tid)> on_row;
};

// Returns the number of rows read. CHECK_FOR_INTERRUPTS every 4,096 rows.
int64_t run_coded_scan(const SourceRelation& source, CodedScan& scan);

}  // namespace privrisk::pg
