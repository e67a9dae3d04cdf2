// What an audit of a release view was an audit of (docs/measures.md, "The
// audit log"): the policy, the digest of its definition, its rules and the
// hierarchies they generalize through, recorded with the audit.
#pragma once

#include <optional>
#include <string>

#include "common/postgres.hpp"

namespace privrisk::pg {

// The trace of `relation` as JSON text, or nullopt when it is not a release
// view. {"policy": key, "policy_digest": hex, "rules": […], "hidden_by_default":
// […], "hierarchies": [{"name", "version", "digest"}]}; the digest is the one
// shards pin (policy_digest: the rules with safe default's, the released
// columns). For a role that may not read the policy's source, only the
// policy's key and "withheld": its rules are the owner's, and a digest could be
// tested against guessed rules offline.
std::optional<std::string> release_trace(Oid relation);

}  // namespace privrisk::pg
