// Hierarchies as stored in privrisk.hierarchy / privrisk.hierarchy_leaf, and
// the per-backend cache of their parsed form.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "hierarchy/hierarchy.hpp"
#include "common/postgres.hpp"

namespace privrisk::pg {

// The hierarchy `name`, parsed from the catalog on first use in this backend.
// The reference stays valid until the end of the transaction, even when a
// catalog change flushes the cache meanwhile (the flushed generation is kept
// until then); hierarchy_for_call() below checks the generation before reusing
// a reference across calls.
const Hierarchy& cached_hierarchy(std::string_view name);
// The same, the catalog version it was parsed from, and its digest: hex of the
// SHA-256 of its definition (kind, parameters, leaf paths; not its name or
// version), equal on every server where the same hierarchy was loaded.
const Hierarchy& cached_hierarchy(std::string_view name, int64* version, std::string* digest = nullptr);

// The version of `name` in the catalog now (read under the current snapshot,
// not from the cache). Every replace gives a hierarchy a new version, and no
// number is ever reused, even when a name is dropped and created again; so a
// policy rule can record the version it was approved with and a release can
// refuse when it differs. An unknown name is an error.
int64 hierarchy_version(std::string_view name);

// Changes whenever the cache is flushed, by a change to the catalog or by any
// full reset of this backend's relation cache (which says nothing of what changed).
uint64_t hierarchy_generation();

// The hierarchies one read uses, each with the digest of the definition it was
// parsed from. A flush of the cache is not a change: check() reads the pinned
// names again only after one, and fails only when a definition differs (another
// session replaced a hierarchy while this one read its tables). The references
// pin() returns stay valid to the end of the transaction.
class HierarchyPins {
public:
    const Hierarchy& pin(std::string_view name);
    // Fails with "hierarchy NAME changed <while>" when a pinned definition changed.
    void check(const char* during);

private:
    std::vector<std::pair<std::string, std::string>> digests_;  // name, digest
    uint64_t generation_ = hierarchy_generation();
};

// The catalog has the owner and version columns (extension 0.9 or later). A
// database still at an older version keeps its old model until ALTER EXTENSION
// privrisk UPDATE: no owners, writes with the caller's own table privileges.
bool hierarchy_catalog_has_owners();

// Registers the invalidation callback; called once from _PG_init.
void register_hierarchy_cache();

// Per-call-site memo kept in *slot (fn_extra by default): skips the name
// lookup while the cache is unchanged.
const Hierarchy& hierarchy_for_call(FunctionCallInfo fcinfo, text* name, void** slot = nullptr);

}  // namespace privrisk::pg
