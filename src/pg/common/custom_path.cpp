#include "common/custom_path.hpp"

namespace privrisk::pg {

CustomPath* new_custom_path(RelOptInfo* rel, ParamPathInfo* param, bool parallel_safe, int workers,
                            const CustomPathMethods* methods) {
    CustomPath* path = makeNode(CustomPath);
    path->path.pathtype = T_CustomScan;
    path->path.parent = rel;
    path->path.pathtarget = rel->reltarget;
    path->path.param_info = param;
    path->path.parallel_aware = workers > 0;
    path->path.parallel_safe = parallel_safe;
    path->path.parallel_workers = workers;
    path->path.pathkeys = NIL;
    path->flags = 0;
    path->custom_private = NIL;
    path->methods = methods;
    return path;
}

}  // namespace privrisk::pg
