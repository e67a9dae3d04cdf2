// privrisk.pinned_hierarchy: a hierarchy pinned by the digest of its definition
// (hierarchy/pinned_hierarchy.hpp), so generalizing through it is IMMUTABLE.
#pragma once

#include "hierarchy/hierarchy.hpp"
#include "common/postgres.hpp"

namespace privrisk::pg {

// The hierarchy a privrisk.pinned_hierarchy datum names, checked to have the
// referenced digest here (an error names the hierarchy and, when the reference
// carries one, the server). Memoized in *slot while the cache is unchanged.
const Hierarchy& pinned_hierarchy_for_call(FunctionCallInfo fcinfo, Datum ref, void** slot);

// The text of a reference to `name` as defined here, for `server` (empty: none).
std::string pinned_hierarchy_text(std::string_view name, const std::string& server);

// A pin written by a user (name@digest[@server]) checked here, as gen() through it
// checks it (an error when the definition here has another digest), and written
// again for `server`.
std::string repinned_hierarchy_text(std::string_view pin, const std::string& server);

// I/O of a pin stored as its canonical text, name@digest[@server]: the types
// privrisk.pinned_hierarchy and privrisk.pinned_policy. `what` names it in errors.
Datum pin_in(const char* text, std::string_view what);
Datum pin_out(Datum pin);
Datum pin_send(Datum pin);
Datum pin_recv(StringInfo buf, std::string_view what);

}  // namespace privrisk::pg
