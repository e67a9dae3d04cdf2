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
    bool unlabelled_hidden = false;  // create_policy(…, unlabelled => 'hide')
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
// the same error (checked before anything else of the policy is used). Its rules
// end with the ones privacy by default adds (add_default_rules).
Policy load_readable_policy(std::string_view name);

// Privacy by default (docs/labels.md), as the source's labels are now: a rule
// that hides each column labelled identifier in every row, and with
// unlabelled_hidden each column without a label. Read at every release, so a
// label set or a column added after the policy is covered at once.
void add_default_rules(Policy& policy);

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

}  // namespace privrisk::pg
