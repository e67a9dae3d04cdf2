// Disclosure policies as stored in privrisk.policy / policy_rule / release_view
// (docs/release.md), the checks every rule condition passes, and who may read a release.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "release/disclosure_rules.hpp"
#include "common/postgres.hpp"

namespace privrisk::pg {

struct PolicyRule {
    int number;
    std::string column;
    DisclosureOp op;
    std::string condition;       // as its owner wrote it (shown, and bound again by refresh_policy)
    std::string condition_tree;  // the bound expression (nodeToString); what a release runs
    std::vector<std::string> condition_columns;  // names of the columns it reads, by ascending attno
    std::string hierarchy;  // gen only
    int level;              // gen only
    int64_t hierarchy_version = 0;  // gen only: the version of the hierarchy its owner approved
};

struct Policy {
    std::string name;
    Oid source;
    std::vector<PolicyRule> rules;  // in rule order
};

// The policy `name` with its rules, read as the catalog's owner (the caller may
// be a role that can read only the release). Unknown names are an error.
// `latest`: see changes made earlier in the same statement (writers); a scan
// reads the policy under its query's snapshot instead.
Policy load_policy(std::string_view name, bool latest = false);
// The same, or nullopt when there is no such policy.
std::optional<Policy> find_policy(std::string_view name, bool latest = false);

// The policy `name` for a change by its owner: one error, the same whether the
// policy is missing or its source is not the caller's, so the catalog's
// contents do not leak to strangers. Reads changes made earlier in the statement.
Policy load_owned_policy(std::string_view name);

// The policy `name` for a reader of its release: missing and not readable give
// the same error (checked before anything else of the policy is used).
Policy load_readable_policy(std::string_view name);

// The release views recorded for `policy`.
std::vector<Oid> release_views_of(std::string_view policy);

// Runs catalog SQL as the catalog's owner: restores the caller on scope exit.
class AsCatalogOwner {
public:
    AsCatalogOwner();
    ~AsCatalogOwner();
    AsCatalogOwner(const AsCatalogOwner&) = delete;
    AsCatalogOwner& operator=(const AsCatalogOwner&) = delete;

private:
    Oid saved_user_;
    int saved_context_;
};

// The source of a policy, checked to exist and to be a table, a partitioned
// table or a materialized view without row-level security (the scan reads it
// directly). Returns it opened with AccessShareLock.
Relation open_policy_source(const Policy& policy);

// Errors unless the current user owns `source` (policies are the owner's to write).
void require_source_owner(Oid source, const char* action);

// The current user owns `source` or holds SELECT on it (may read it anyway).
bool reads_source(Oid source);

// The current user may read the release of `policy`: reads the source, or
// holds SELECT on one of the policy's release views.
bool may_read_release(const Policy& policy);

// The attribute number of a policy's `column` in its `source` (user columns only).
AttrNumber policy_column_attno(Relation source, const std::string& column, const std::string& policy);

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

}  // namespace privrisk::pg
