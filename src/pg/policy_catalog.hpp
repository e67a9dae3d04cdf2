// Disclosure policies as stored in privrisk.policy / policy_rule / release_view
// (SPEC §4.2), the checks every rule condition passes, and who may read a release.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "disclosure_rules.hpp"
#include "postgres.hpp"

namespace privrisk::pg {

struct PolicyRule {
    int number;
    std::string column;
    DisclosureOp op;
    std::string condition;
    std::string hierarchy;  // gen only
    int level;              // gen only
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

// Errors unless the current user may read the release of `policy`: reads the
// source, or holds SELECT on one of the policy's release views.
void require_release_reader(const Policy& policy);

// The attribute number of `column` in `source` (user columns only).
AttrNumber source_column(Relation source, const std::string& column, const std::string& policy);

// Parses and checks a rule condition against `source`: one SQL boolean
// expression over the source's columns, constants, operators and immutable
// built-in functions; no subquery, parameter, aggregate or other relation.
// Returns it ready for ExecInitExpr (Vars of range table entry 1), allocated
// in the current memory context. `what` names the rule in errors.
Expr* parse_condition(Relation source, const std::string& condition, const std::string& what);

}  // namespace privrisk::pg
