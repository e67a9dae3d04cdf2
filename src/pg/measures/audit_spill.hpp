// audit()'s spilling GROUP BY (docs/measures.md), past privrisk.audit_memory_limit:
// PostgreSQL groups the rows and spills to disk, keeping only each class's histogram.
// A quasi-identifier with a hierarchy is not generalized by gen() once per row: one
// SQL pass finds its distinct values, each is generalized once here (as the class
// reader does), and the grouping query joins each row's value to its generalization.
#pragma once

#include <string>
#include <vector>

#include "classes/class_query.hpp"
#include "common/spi.hpp"
#include "measures/audit_read.hpp"

namespace privrisk::pg {

struct SpillQuery {
    std::string sql;  // per class: its hist(), then the rows whose value had no generalization (0)
    std::vector<SpiArg> args;
};

// Runs the distinct-value pass (inside the caller's Spi scope, in its snapshot) and
// returns the grouping query: over the source's rows, or over each shard's level-0
// classes (hist() per class, merged here) when `shards` is not empty. The distinct
// values are held within privrisk.memory_limit; a value a hierarchy lacks fails as gen() does.
SpillQuery spilling_group_query(const AuditSource& audited, const std::vector<Shard>& shards);

}  // namespace privrisk::pg
