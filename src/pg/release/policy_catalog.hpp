// Disclosure policies as stored in privrisk.policy / policy_rule / release_view
// (docs/release.md), read and written as the catalog's owner.
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
    std::string column;  // the name its column had when the owner last approved the policy
    DisclosureOp op;
    std::string condition;                       // as its owner wrote it (shown, and bound again by refresh_policy)
    std::string condition_tree;                  // the bound expression (nodeToString); what a release runs
    std::vector<std::string> condition_columns;  // names of the columns it reads, by ascending attno
    std::string hierarchy;                       // gen only
    int level;                                   // gen only
    int64_t hierarchy_version = 0;               // gen only: the version of the hierarchy its owner approved
    AttrNumber attno = 0;                        // its column, by number (0: a 0.13 rule whose column was gone)
};

// A column of the source as the policy's owner last approved it (create_policy,
// add_rule, refresh_policy). `guarded`: a rule or a label named it then, so a
// release stops when it was renamed, retyped or dropped since.
struct BoundColumn {
    AttrNumber attno;
    std::string name;
    Oid type;
    bool guarded;
};

struct Policy {
    std::string name;       // the key: schema.name (quote_ident's form), the schema its source had
    std::string base_name;  // the name alone, as create_policy was given it
    Oid source;
    std::vector<PolicyRule> rules;     // in rule order
    bool unlabelled_hidden = false;    // create_policy(…, unlabelled => 'hide')
    std::vector<BoundColumn> columns;  // by number
};

// The column named `name` when the policy's owner last approved its columns, or nullptr.
const BoundColumn* approved_column(const Policy& policy, std::string_view name);

// An operator's name in the catalog (policy_rule.operator) and back; nullopt for an unknown name.
std::optional<DisclosureOp> disclosure_op(std::string_view name);
const char* disclosure_op_name(DisclosureOp op);

// Whether the catalog is 0.14's (policy keys, bound columns): a database not
// yet updated keeps 0.13's names as keys and its rules by name until it is.
bool policy_catalog_current();

// The key of a policy named `name` on a source in schema `schema`.
std::string policy_key(Oid schema, const std::string& name);

// Who looks a policy up: its owner (owns the source) or a reader of the source.
enum class PolicyUse { Own, Read };

// The key `name` stands for, among the policies the caller may `use` (so the
// answer says nothing of the others): the key itself, else the one policy of
// that base name; several are an error that lists them; none, nullopt.
std::optional<std::string> resolve_policy(std::string_view name, PolicyUse use);

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
// the same error (checked before anything else of the policy is used). Its rules
// end with the ones privacy by default adds (add_default_rules). `view`: the
// release view whose definition holds this release (view_grants.hpp), whose
// registration then names the policy; InvalidOid for a release read directly,
// which only a reader of the source may do.
Policy load_readable_policy(std::string_view name, Oid view = InvalidOid);

// The same, or nullopt where it would fail (for the planner: nothing of a
// policy the caller may not read shapes a plan); without the default rules.
std::optional<Policy> find_readable_policy(std::string_view name, Oid view = InvalidOid);

// The policy a release view is registered for, or nullopt.
std::optional<std::string> policy_of_view(Oid view);

// The source columns a release view releases, by name, as recorded when it was
// made: (name, number) in the view's order; empty for a view recorded without.
std::vector<std::pair<std::string, AttrNumber>> view_columns(Oid view);

// Safe by default (docs/release.md), as the source's labels are now: a rule
// that hides in every row each column labelled identifier, each column labelled
// quasi_identifier or sensitive that no rule names, and with unlabelled_hidden
// each column without a label that no rule names (safe_default.hpp). Read at
// every release, so a label set or a column added after the policy is covered at once.
void add_default_rules(Policy& policy);

// The release views recorded for `policy`.
std::vector<Oid> release_views_of(std::string_view policy);

}  // namespace privrisk::pg
