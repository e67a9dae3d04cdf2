// audit()'s classes when a quasi-identifier has a hierarchy (docs/measures.md):
// the class reader's level-0 classes (classes/coded_classes.hpp: from the heap,
// in parallel where the planner would read in parallel), each distinct value
// generalized once to its level as gen() does, and the classes rolled up to
// those values. The same classes as grouping by gen() per row, without a call of
// gen() per row.
#pragma once

#include <optional>
#include <vector>

#include "classes/class_query.hpp"
#include "classes/contingency_table.hpp"
#include "common/source_columns.hpp"
#include "hierarchy/hierarchy.hpp"

namespace privrisk::pg {

struct AuditedLevels {
    ContingencyTable table;
    int workers = 0;  // parallel workers that read with the leader
};

// `value` at `level` of `h`, as gen() gives it (nullopt: ⊥). A value `h` lacks is an
// UncoveredValueError, which explaining_uncovered (hierarchy_coverage.hpp) counts with the others.
Value audited_level(const Hierarchy& h, std::string_view value, int level, std::string& scratch);

// Past privrisk.audit_memory_limit, an error with ErrorKind::ProgramLimit (or,
// from a parallel read, an ERROR 54000): run it in a subtransaction (in_subtransaction;
// in parallel mode there is none, and only the error in C++ can be caught) that falls
// back to the spilling GROUP BY. A value its hierarchy lacks fails as gen() does.
AuditedLevels audited_levels(const SourceRelation& source, const std::vector<ClassColumn>& columns,
                             const std::optional<SourceColumn>& sensitive);

}  // namespace privrisk::pg
