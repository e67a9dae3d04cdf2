// A CustomPath as each of privrisk's custom scans starts one (the release scan, its
// index paths, the shards' GROUP BY): of `rel`'s target, parallel-aware when it has
// workers; the caller sets its rows, costs and private list.
#pragma once

#include "common/postgres.hpp"

namespace privrisk::pg {

CustomPath* new_custom_path(RelOptInfo* rel, ParamPathInfo* param, bool parallel_safe, int workers,
                            const CustomPathMethods* methods);

}  // namespace privrisk::pg
