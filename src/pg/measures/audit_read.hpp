// How audit() reads the classes of a release (docs/measures.md, docs/scale-out.md),
// decided once per call: by parallel workers from the heap (a table's own columns),
// through the class reader (a quasi-identifier with a hierarchy, audit_levels.hpp),
// as class tallies (shards, or workers of a SQL read with few classes per row),
// serially (heap or SQL) into a class aggregation, and past
// privrisk.audit_memory_limit with a GROUP BY that PostgreSQL spills to disk.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "classes/class_query.hpp"
#include "classes/contingency_table.hpp"
#include "common/source_columns.hpp"

namespace privrisk::pg {

struct AuditSource {
    SourceRelation source;
    std::vector<ClassColumn> columns;  // the quasi-identifiers, with their hierarchies and levels
    std::optional<SourceColumn> sensitive;
};

struct AuditRead {
    ContingencyTable table;
    std::string how;                    // which read gave it (DEBUG1)
    Size peak = 0;                      // the most memory the read held
    double scan_ms = 0, finish_ms = 0;  // reading the rows; putting the table together
};

AuditRead read_audit_classes(const AuditSource& audited);

}  // namespace privrisk::pg
