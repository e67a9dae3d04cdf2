#include <algorithm>

#include "labels/column_labels.hpp"
#include "release/policy_catalog.hpp"

#include "release/policy_access.hpp"

#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/spi.hpp"

namespace privrisk::pg {

namespace {

Oid catalog_owner() {
    return pg_call([] {
        Oid schema = get_namespace_oid("privrisk", false);
        Oid relid = get_relname_relid("policy", schema);
        if (!OidIsValid(relid)) elog(ERROR, "privrisk.policy is missing; update the extension to 0.4");
        HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
        if (!HeapTupleIsValid(tuple)) elog(ERROR, "cache lookup failed for relation %u", relid);
        Oid owner = ((Form_pg_class)GETSTRUCT(tuple))->relowner;
        ReleaseSysCache(tuple);
        return owner;
    });
}

}  // namespace

AsCatalogOwner::AsCatalogOwner() {
    Oid owner = catalog_owner();
    GetUserIdAndSecContext(&saved_user_, &saved_context_);
    SetUserIdAndSecContext(owner, saved_context_ | SECURITY_LOCAL_USERID_CHANGE | SECURITY_RESTRICTED_OPERATION);
}

AsCatalogOwner::~AsCatalogOwner() { SetUserIdAndSecContext(saved_user_, saved_context_); }

// Queries below run as the catalog's owner: every operator is schema-qualified
// so nothing on the caller's search_path can stand in for it.
std::optional<Policy> find_policy(std::string_view name, bool latest) {
    Policy policy;
    policy.name = std::string(name);
    AsCatalogOwner owner;
    Spi spi;
    // unlabelled read through the row's jsonb: NULL in a catalog not yet updated from 0.11.
    if (spi.run("SELECT source::pg_catalog.oid::pg_catalog.int8, "
                "pg_catalog.to_jsonb(p) OPERATOR(pg_catalog.->>) 'unlabelled' FROM privrisk.policy p "
                "WHERE name OPERATOR(pg_catalog.=) $1",
                {text_arg(name)}, !latest) == 0) {
        spi.finish();
        return std::nullopt;
    }
    policy.source = static_cast<Oid>(spi.int8(0, 1));
    policy.unlabelled_hidden = !spi.null(0, 2) && spi.string(0, 2) == "hide";
    uint64 n = spi.run("SELECT rule, column_name::pg_catalog.text, operator, condition, hierarchy, level, "
                       "condition_tree, condition_columns::pg_catalog.text[], hierarchy_version "
                       "FROM privrisk.policy_rule WHERE policy OPERATOR(pg_catalog.=) $1 ORDER BY rule",
                       {text_arg(name)}, !latest);
    for (uint64 i = 0; i < n; ++i) {
        PolicyRule r;
        r.number = static_cast<int>(spi.int8(i, 1));
        r.column = spi.string(i, 2);
        std::string op = spi.string(i, 3);
        if (op != "hide" && op != "gen")
            fail(ErrorKind::Internal, "rule " + std::to_string(r.number) + " of policy " + quote_value(name) +
                                          " has unknown operator " + quote_value(op));
        r.op = op == "hide" ? DisclosureOp::Hide : DisclosureOp::Gen;
        r.condition = spi.string(i, 4);
        r.hierarchy = spi.null(i, 5) ? "" : spi.string(i, 5);
        r.level = spi.null(i, 6) ? 0 : static_cast<int>(spi.int8(i, 6));
        if (!spi.null(i, 7)) r.condition_tree = spi.string(i, 7);
        if (!spi.null(i, 8)) r.condition_columns = spi.strings(i, 8);
        if (!spi.null(i, 9)) r.hierarchy_version = spi.int8(i, 9);
        if (r.op == DisclosureOp::Gen && (r.hierarchy.empty() || spi.null(i, 6)))
            fail(ErrorKind::Internal, "gen rule " + std::to_string(r.number) + " of policy " + quote_value(name) +
                                          " has no hierarchy or level");
        policy.rules.push_back(std::move(r));
    }
    spi.finish();
    return policy;
}


Policy load_owned_policy(std::string_view name) {
    std::optional<Policy> policy = find_policy(name, true);
    if (policy) {
        Oid source = policy->source;
        bool mine = pg_call([&] {
            return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(source)) ? pg_class_ownercheck(source, GetUserId())
                                                                           : superuser();
        });
        if (mine) return std::move(*policy);
    }
    fail(ErrorKind::UndefinedObject, "policy " + quote_value(name) + " does not exist or you do not own its source");
}

Policy load_readable_policy(std::string_view name) {
    std::optional<Policy> policy = find_policy(name);
    if (!policy || !may_read_release(*policy))
        fail(ErrorKind::PermissionDenied,
             "policy " + quote_value(name) +
                 " does not exist or you may not read its release (that needs SELECT on its source or on one of its "
                 "release views)");
    add_default_rules(*policy);
    return std::move(*policy);
}

void add_default_rules(Policy& policy) {
    int number = 0;
    for (const PolicyRule& r : policy.rules) number = std::max(number, r.number);
    static const std::string never = [] {  // the bound form of the condition 'false'
        return std::string(pg_call([] { return nodeToString(makeBoolConst(false, false)); }));
    }();
    for (const std::string& column : hidden_by_default(policy.source, policy.unlabelled_hidden)) {
        PolicyRule r{++number, column, DisclosureOp::Hide, "false", never, {}, {}, 0, 0};
        policy.rules.push_back(std::move(r));
    }
}

std::vector<Oid> release_views_of(std::string_view policy) {
    AsCatalogOwner owner;
    Spi spi;
    uint64 n = spi.run("SELECT view::pg_catalog.oid::pg_catalog.int8 FROM privrisk.release_view WHERE policy OPERATOR(pg_catalog.=) $1",
                       {text_arg(policy)}, true);
    std::vector<Oid> views;
    for (uint64 i = 0; i < n; ++i) views.push_back(static_cast<Oid>(spi.int8(i, 1)));
    spi.finish();
    return views;
}


}  // namespace privrisk::pg
