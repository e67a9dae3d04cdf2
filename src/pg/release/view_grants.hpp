// A release view's readers read the view (docs/release.md): a release() call in
// the definition of a view is marked, while the query is planned, with that
// view, so its scan knows which registered view grants the read; a release()
// anywhere else is read directly, which only a reader of the source may do.
#pragma once

#include <string>

#include "common/postgres.hpp"

namespace privrisk::pg {

// The planner's SupportRequestSimplify for release(policy) and
// release_policy_is(policy, digest): the call with the view whose definition
// holds it as one more argument, or nullptr to leave it as it is.
Node* mark_view_call(SupportRequestSimplify* request);

// The view a call was marked with: its argument at `position` (1 for
// release(policy), 2 for release_policy_is(policy, digest)) in its FuncExpr's
// arguments, or InvalidOid for a call the reader wrote.
Oid marked_view(List* args, int position = 1);

// Errors unless `view`'s own definition reads the release of `policy` (key or
// name alone) in its FROM, and either is exactly SELECT … FROM that release or
// is a security barrier: a view that can leave rows out must keep the reader's
// own functions from the rows it leaves out.
void check_view_definition(Oid view, const std::string& policy, const std::string& base);

}  // namespace privrisk::pg
