// The SQL functions behind release(policy): its planner support function (the
// view's mark and the row estimate; calling it also loads this library, so the
// planner hook is in place before release()'s paths are made) and the function
// itself, which runs only when the scan could not replace it.
#include "common/error.hpp"
#include "common/guard.hpp"
#include "release/release_scan.hpp"
#include "release/view_grants.hpp"

using namespace privrisk;
using namespace privrisk::pg;

PRIVRISK_FUNCTION(privrisk_release_support) {
    Node* request = reinterpret_cast<Node*>(PG_GETARG_POINTER(0));
    // A call in a view's definition gets that view as its mark (view_grants.hpp).
    if (IsA(request, SupportRequestSimplify))
        PG_RETURN_POINTER(mark_view_call(reinterpret_cast<SupportRequestSimplify*>(request)));
    if (!IsA(request, SupportRequestRows)) PG_RETURN_POINTER(nullptr);
    auto* rows = reinterpret_cast<SupportRequestRows*>(request);
    auto* call = reinterpret_cast<FuncExpr*>(rows->node);
    if (!call || !IsA(call, FuncExpr) || list_length(call->args) < 1) PG_RETURN_POINTER(nullptr);
    double estimate = release_rows_estimate(rows->root, call->args);
    if (estimate < 0) PG_RETURN_POINTER(nullptr);
    rows->rows = estimate;
    PG_RETURN_POINTER(rows);
}

PRIVRISK_FUNCTION(privrisk_release) {
    fail(ErrorKind::InvalidParameter,
         "privrisk.release(policy) can only be used as a table in FROM, e.g. SELECT * FROM "
         "privrisk.release('p') AS r(...), or through a view made by privrisk.create_release_view");
}
