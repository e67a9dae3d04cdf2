// Rule conditions bound once by the policy's owner and checked again for each
// release (docs/release.md, docs/security.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "release/policy_catalog.hpp"

namespace privrisk::pg {

// A rule condition bound once, by its owner: parsed and analyzed under the
// pinned search path (so every name means the built-in object), checked to be
// one boolean expression over the source's columns, constants and built-in
// immutable operators, functions and types (no subquery, parameter, aggregate
// or other relation). The release runs this tree, never the text again.
struct BoundCondition {
    std::string tree;                  // nodeToString of the analyzed expression
    std::vector<std::string> columns;  // the columns it reads, by ascending attno
};
BoundCondition bind_condition(Relation source, const std::string& condition, const std::string& what);

// The bound condition of `rule`, checked again (built-in objects only; every
// column it reads still exists with the same name, type, typmod and collation)
// and ready for ExecInitExpr, allocated in the current memory context.
Expr* load_condition(Relation source, const PolicyRule& rule, const std::string& policy);

// The bound condition of `rule` kept as it is, with the names its columns have
// now, when every column its tree reads still stands at its number with its
// type, typmod and collation (a rename keeps a condition); nullopt otherwise.
std::optional<BoundCondition> bound_in_place(Relation source, const PolicyRule& rule);

// The column numbers a bound condition reads, ascending.
std::vector<AttrNumber> bound_attnos(const std::string& tree);

}  // namespace privrisk::pg
