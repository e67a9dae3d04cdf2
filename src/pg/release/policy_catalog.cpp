#include <algorithm>

#include "labels/column_labels.hpp"
#include "release/policy_catalog.hpp"

#include "release/policy_access.hpp"
#include "release/policy_cache.hpp"
#include "release/safe_default.hpp"

#include "common/catalog_owner.hpp"
#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/spi.hpp"

namespace privrisk::pg {

std::string policy_key(Oid schema, const std::string& name) {
    const char* base = name.c_str();
    return pg_call([&] { return quote_qualified_identifier(get_namespace_name(schema), base); });
}

namespace {

// Whether the caller may `use` a policy on `source` (its owner: owns the
// source; a superuser may act on a policy whose source is gone).
bool may_use(Oid source, PolicyUse use) {
    bool exists = pg_call([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(source)); });
    if (!exists) return use == PolicyUse::Own && pg_call([] { return superuser(); });
    if (use == PolicyUse::Read) return reads_source(source);
    return pg_call([&] { return pg_class_ownercheck(source, GetUserId()); });
}

}  // namespace

bool policy_catalog_current() {
    return pg_call([] {
        Oid schema = get_namespace_oid("privrisk", false);
        return OidIsValid(get_relname_relid("policy_column", schema));
    });
}

// Queries below run as the catalog's owner: every operator is schema-qualified
// so nothing on the caller's search_path can stand in for it.
namespace {

// The policies a name may stand for, (key, source), the key first when it
// matches: rows of the catalog, the same for every caller (resolve_policy
// keeps those the caller may use).
using PolicyCandidates = std::vector<std::pair<std::string, Oid>>;

PolicyCandidates read_candidates(std::string_view name, bool current) {
    PolicyCandidates found;
    {
        AsCatalogOwner owner;
        Spi spi;
        uint64 n = spi.run(current ? "SELECT name, source::pg_catalog.oid::pg_catalog.int8 FROM privrisk.policy "
                                     "WHERE name OPERATOR(pg_catalog.=) $1 OR base_name OPERATOR(pg_catalog.=) $1 "
                                     "ORDER BY name OPERATOR(pg_catalog.<>) $1, name"
                                   : "SELECT name, source::pg_catalog.oid::pg_catalog.int8 FROM privrisk.policy "
                                     "WHERE name OPERATOR(pg_catalog.=) $1",
                           {text_arg(name)}, true);
        for (uint64 i = 0; i < n; ++i) found.emplace_back(spi.string(i, 1), static_cast<Oid>(spi.int8(i, 2)));
        spi.finish();
    }
    return found;
}

}  // namespace

std::optional<std::string> resolve_policy(std::string_view name, PolicyUse use) {
    const bool current = policy_catalog_current();  // before 0.14's update: names are keys
    static ReleaseCache<std::string, PolicyCandidates> cache;
    // The caller's rights are checked below, on every call, cached rows or not.
    const PolicyCandidates found = current ? cache.get(std::string(name), [&] { return read_candidates(name, true); })
                                           : read_candidates(name, false);
    std::vector<std::string> usable;
    for (const auto& [key, source] : found) {
        if (!may_use(source, use)) continue;
        if (key == name) return key;  // the key itself
        usable.push_back(key);
    }
    if (usable.empty()) return std::nullopt;
    if (usable.size() > 1) {  // the caller's own policy, if exactly one is (another role's cannot shadow it)
        std::vector<std::string> own;
        for (const auto& [key, source] : found)
            if (std::find(usable.begin(), usable.end(), key) != usable.end() && may_use(source, PolicyUse::Own))
                own.push_back(key);
        if (own.size() == 1) return own[0];
    }
    if (usable.size() > 1) {
        std::string keys;
        for (const std::string& k : usable) keys += (keys.empty() ? "" : ", ") + quote_value(k);
        fail(ErrorKind::InvalidParameter, "policy name " + quote_value(name) + " is ambiguous: it names " + keys +
                                              " (policies are named per schema); give the schema-qualified name");
    }
    return usable[0];
}

std::optional<DisclosureOp> disclosure_op(std::string_view name) {
    if (name == "hide") return DisclosureOp::Hide;
    if (name == "gen") return DisclosureOp::Gen;
    if (name == "pseudonymize") return DisclosureOp::Pseudonymize;
    return std::nullopt;
}

const char* disclosure_op_name(DisclosureOp op) {
    switch (op) {
        case DisclosureOp::Gen:
            return "gen";
        case DisclosureOp::Pseudonymize:
            return "pseudonymize";
        default:
            return "hide";
    }
}

namespace {

std::optional<Policy> read_policy(std::string_view name, bool latest, bool current) {
    Policy policy;
    policy.name = std::string(name);
    AsCatalogOwner owner;
    Spi spi;
    // Read through the row's jsonb: a catalog not yet updated lacks the newer columns (NULL then).
    if (spi.run("SELECT source::pg_catalog.oid::pg_catalog.int8, pg_catalog.to_jsonb(p) OPERATOR(pg_catalog.->>) "
                "'unlabelled', pg_catalog.to_jsonb(p) OPERATOR(pg_catalog.->>) 'base_name' FROM privrisk.policy p "
                "WHERE name OPERATOR(pg_catalog.=) $1",
                {text_arg(name)}, !latest) == 0) {
        spi.finish();
        return std::nullopt;
    }
    policy.source = static_cast<Oid>(spi.int8(0, 1));
    policy.unlabelled_hidden = !spi.null(0, 2) && spi.string(0, 2) == "hide";
    policy.base_name = spi.null(0, 3) ? policy.name : spi.string(0, 3);
    uint64 n = spi.run(
        "SELECT rule, column_name::pg_catalog.text, operator, condition, hierarchy, level, "
        "condition_tree, condition_columns::pg_catalog.text[], hierarchy_version, "
        "(pg_catalog.to_jsonb(r) OPERATOR(pg_catalog.->>) 'column_number')::pg_catalog.int8 "
        "FROM privrisk.policy_rule r WHERE policy OPERATOR(pg_catalog.=) $1 ORDER BY rule",
        {text_arg(name)}, !latest);
    for (uint64 i = 0; i < n; ++i) {
        PolicyRule r;
        r.number = static_cast<int>(spi.int8(i, 1));
        r.column = spi.string(i, 2);
        std::string op = spi.string(i, 3);
        std::optional<DisclosureOp> known = disclosure_op(op);
        if (!known)
            fail(ErrorKind::Internal, "rule " + std::to_string(r.number) + " of policy " + quote_value(name) +
                                          " has unknown operator " + quote_value(op));
        r.op = *known;
        r.condition = spi.string(i, 4);
        r.hierarchy = spi.null(i, 5) ? "" : spi.string(i, 5);
        r.level = spi.null(i, 6) ? 0 : static_cast<int>(spi.int8(i, 6));
        if (!spi.null(i, 7)) r.condition_tree = spi.string(i, 7);
        if (!spi.null(i, 8)) r.condition_columns = spi.strings(i, 8);
        if (!spi.null(i, 9)) r.hierarchy_version = spi.int8(i, 9);
        if (!spi.null(i, 10)) r.attno = static_cast<AttrNumber>(spi.int8(i, 10));
        const Oid source = policy.source;
        const char* column = r.column.c_str();
        if (!current) r.attno = pg_call([&] { return get_attnum(source, column); });  // 0.13: rules by name
        if (r.op == DisclosureOp::Gen && (r.hierarchy.empty() || spi.null(i, 6)))
            fail(ErrorKind::Internal, "gen rule " + std::to_string(r.number) + " of policy " + quote_value(name) +
                                          " has no hierarchy or level");
        policy.rules.push_back(std::move(r));
    }
    n = !current ? 0
                 : spi.run(
                       "SELECT column_number, column_name::pg_catalog.text, "
                       "column_type::pg_catalog.oid::pg_catalog.int8, guarded::pg_catalog.int4 "
                       "FROM privrisk.policy_column WHERE policy OPERATOR(pg_catalog.=) $1 ORDER BY column_number",
                       {text_arg(name)}, !latest);
    for (uint64 i = 0; i < n; ++i)
        policy.columns.push_back({static_cast<AttrNumber>(spi.int8(i, 1)), spi.string(i, 2),
                                  static_cast<Oid>(spi.int8(i, 3)), spi.int8(i, 4) != 0});
    spi.finish();
    return policy;
}

}  // namespace

std::optional<Policy> find_policy(std::string_view name, bool latest) {
    const bool current = policy_catalog_current();
    // Writers read their own changes, uncached; a 0.13 catalog binds rules by
    // column name (get_attnum), which a source's DDL changes without a flush.
    if (latest || !current) return read_policy(name, latest, current);
    static ReleaseCache<std::string, std::optional<Policy>> cache;
    return cache.get(std::string(name), [&] { return read_policy(name, false, true); });
}

Policy load_owned_policy(std::string_view name) {
    std::optional<std::string> key = resolve_policy(name, PolicyUse::Own);
    std::optional<Policy> policy = key ? find_policy(*key, true) : std::nullopt;
    if (!policy)
        fail(ErrorKind::UndefinedObject,
             "policy " + quote_value(name) + " does not exist or you do not own its source");
    return std::move(*policy);
}

namespace {

std::optional<std::string> read_policy_of_view(Oid view) {
    AsCatalogOwner owner;
    Spi spi;
    std::optional<std::string> policy;
    if (spi.run("SELECT policy FROM privrisk.release_view WHERE view OPERATOR(pg_catalog.=) $1",
                {oid_arg(REGCLASSOID, view)}, false) > 0)
        policy = spi.string(0, 1);
    spi.finish();
    return policy;
}

using ViewColumns = std::vector<std::pair<std::string, AttrNumber>>;

ViewColumns read_view_columns(Oid view) {
    AsCatalogOwner owner;
    Spi spi;
    std::vector<std::pair<std::string, AttrNumber>> columns;
    if (spi.run("SELECT column_names::pg_catalog.text[], column_numbers::pg_catalog.int8[] FROM privrisk.release_view "
                "WHERE view OPERATOR(pg_catalog.=) $1 AND column_names IS NOT NULL AND column_numbers IS NOT NULL",
                {oid_arg(REGCLASSOID, view)}, false) > 0) {
        std::vector<std::string> names = spi.strings(0, 1);
        std::vector<long> numbers = spi.int8_array(0, 2);
        for (std::size_t i = 0; i < names.size() && i < numbers.size(); ++i)
            columns.emplace_back(names[i], static_cast<AttrNumber>(numbers[i]));
    }
    spi.finish();
    return columns;
}

}  // namespace

std::optional<std::string> policy_of_view(Oid view) {
    static ReleaseCache<Oid, std::optional<std::string>> cache;
    return cache.get(view, [&] { return read_policy_of_view(view); });
}

std::vector<std::pair<std::string, AttrNumber>> view_columns(Oid view) {
    if (!policy_catalog_current()) return {};
    static ReleaseCache<Oid, ViewColumns> cache;
    return cache.get(view, [&] { return read_view_columns(view); });
}

std::optional<Policy> find_readable_policy(std::string_view name, Oid view) {
    std::optional<Policy> policy;
    if (OidIsValid(view)) {
        // Read through a release view: its registration names the policy, and the
        // name in its definition must be that policy's (its key, or its name alone).
        std::optional<std::string> key = policy_of_view(view);
        if (key) policy = find_policy(*key);
        if (policy && name != policy->name && name != policy->base_name) policy.reset();
        if (policy) return policy;
    }
    // Read directly (or through a view that is not the policy's): a reader of the source only.
    std::optional<std::string> key = resolve_policy(name, PolicyUse::Read);
    if (key) policy = find_policy(*key);
    return policy;
}

Policy load_readable_policy(std::string_view name, Oid view) {
    std::optional<Policy> policy = find_readable_policy(name, view);
    if (!policy)
        fail(ErrorKind::PermissionDenied,
             "policy " + quote_value(name) +
                 " does not exist or you may not read its release (that needs SELECT on its source, or reading it "
                 "through one of its release views)");
    add_default_rules(*policy);
    return std::move(*policy);
}

const BoundColumn* approved_column(const Policy& policy, std::string_view name) {
    for (const BoundColumn& c : policy.columns)
        if (c.name == name) return &c;
    return nullptr;
}

void add_default_rules(Policy& policy) {
    int number = 0;
    for (const PolicyRule& r : policy.rules) number = std::max(number, r.number);
    static const std::string never = [] {  // the bound form of the condition 'false'
        return std::string(pg_call([] { return nodeToString(makeBoolConst(false, false)); }));
    }();
    for (DefaultHidden& column : hidden_by_default(policy)) {  // labels are read as they are now
        // A labelled identifier with a pseudonymize rule: its pseudonym in every row
        // (the rules' maximum), never its value; any other: ⊥.
        const DisclosureOp op = column.pseudonymized ? DisclosureOp::Pseudonymize : DisclosureOp::Hide;
        PolicyRule r{++number, std::move(column.column), op, "false", never, {}, {}, 0, 0, column.attno};
        policy.rules.push_back(std::move(r));
    }
}

std::vector<Oid> release_views_of(std::string_view policy) {
    AsCatalogOwner owner;
    Spi spi;
    uint64 n = spi.run(
        "SELECT view::pg_catalog.oid::pg_catalog.int8 FROM privrisk.release_view WHERE policy OPERATOR(pg_catalog.=) "
        "$1",
        {text_arg(policy)}, true);
    std::vector<Oid> views;
    for (uint64 i = 0; i < n; ++i) views.push_back(static_cast<Oid>(spi.int8(i, 1)));
    spi.finish();
    return views;
}

}  // namespace privrisk::pg
