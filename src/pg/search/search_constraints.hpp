// A search's constraints jsonb (docs/search.md) read into the core's Constraints:
// shared by search() and by a policy's record suppression (docs/release.md), so a
// release judges classes by the very thresholds the search met.
#pragma once

#include <map>
#include <string>

#include "search/lattice_search.hpp"

namespace privrisk::pg {

// `given`: each key's value as text (json_option_texts). Checks each value's range;
// a hierarchical t-closeness reads its hierarchy (which lives as long as the hierarchy cache).
Constraints parse_constraints(const std::map<std::string, std::string>& given);

}  // namespace privrisk::pg
