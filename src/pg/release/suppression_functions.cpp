// A policy's record suppression rule: stored by set_suppression (and by
// apply_generalization from a search result), read by every release of the
// policy (scan_suppression.cpp). docs/release.md, "Record suppression".
#include <algorithm>
#include <cstring>

#include "common/catalog_owner.hpp"
#include "common/args.hpp"
#include "common/json_text.hpp"
#include "common/error.hpp"
#include "common/spi.hpp"
#include "release/policy_access.hpp"
#include "release/policy_cache.hpp"
#include "release/policy_catalog.hpp"
#include "release/scan_suppression.hpp"
#include "release/shard_release.hpp"
#include "release/suppression_catalog.hpp"
#include "search/search_constraints.hpp"

extern "C" {
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace privrisk::pg {

const std::vector<const char*>& suppression_keys() {
    static const std::vector<const char*> keys = {"k", "max_risk", "l",           "l_kind", "l_c",
                                                  "t", "t_kind",   "t_hierarchy", "delta",  "max_suppression"};
    return keys;
}

namespace {

std::optional<SuppressionRule> read_suppression(const std::string& key, bool latest) {
    AsCatalogOwner owner;
    Spi spi;
    std::optional<SuppressionRule> rule;
    // A database not yet updated to 0.15 has no such table (and no rule).
    spi.run("SELECT (pg_catalog.to_regclass('privrisk.policy_suppression') IS NOT NULL)::pg_catalog.text", {}, true);
    if (spi.string(0, 1) == "true" &&
        spi.run("SELECT quasi_identifiers::pg_catalog.text[], sensitive::pg_catalog.text, constraints::pg_catalog.text "
                "FROM privrisk.policy_suppression WHERE policy OPERATOR(pg_catalog.=) $1",
                {text_arg(key)}, !latest) > 0) {
        rule = SuppressionRule{spi.strings(0, 1), std::nullopt, spi.string(0, 3)};
        if (!spi.null(0, 2)) rule->sensitive = spi.string(0, 2);
    }
    spi.finish();
    return rule;
}

}  // namespace

std::optional<SuppressionRule> find_suppression(const std::string& key, bool latest) {
    if (latest) return read_suppression(key, true);  // a writer's own changes, uncached
    static ReleaseCache<std::string, std::optional<SuppressionRule>> cache;
    return cache.get(key, [&] { return read_suppression(key, false); });
}

}  // namespace privrisk::pg

namespace {

// The column `name` of the source, checked to exist (a user column, not dropped).
void require_column(Relation source, const std::string& name, const char* role, const std::string& policy) {
    const char* column = name.c_str();
    AttrNumber attno = pg_call([&] { return get_attnum(RelationGetRelid(source), column); });
    if (attno <= 0)
        fail(ErrorKind::UndefinedObject, "set_suppression: " + std::string(role) + " " + quote_value(name) +
                                             " is not a column of the source of policy " + quote_value(policy));
}

}  // namespace

// set_suppression(policy, quasi_identifiers, constraints, sensitive): the policy's
// suppression rule, replacing any; constraints NULL removes it. Its owner only.
PRIVRISK_FUNCTION(privrisk_set_suppression) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    Policy policy = load_owned_policy(name);  // before anything else is read or said
    if (PG_ARGISNULL(2)) {
        AsCatalogOwner owner;
        Spi spi;
        spi.run("DELETE FROM privrisk.policy_suppression WHERE policy OPERATOR(pg_catalog.=) $1",
                {text_arg(policy.name)}, false);
        spi.finish();
        PG_RETURN_VOID();
    }
    auto qi = text_array_arg_values(fcinfo, 1, "quasi_identifiers", false);
    if (qi.empty())
        fail(ErrorKind::InvalidParameter, "set_suppression: quasi_identifiers must name at least one column");
    std::optional<std::string> sensitive;
    if (!PG_ARGISNULL(3)) sensitive = std::string(text_view(PG_GETARG_DATUM(3)));
    Datum constraints = PG_GETARG_DATUM(2);
    std::vector<std::string> unknown;
    for (const std::string& key : json_keys(constraints)) {
        const auto& keys = suppression_keys();
        if (std::none_of(keys.begin(), keys.end(), [&](const char* k) { return key == k; })) unknown.push_back(key);
    }
    if (!unknown.empty())
        fail(ErrorKind::InvalidParameter,
             "set_suppression: constraint " + quote_value(unknown[0]) +
                 " is not a per-class constraint; a suppression rule takes k, max_risk, l, l_kind, l_c, t, t_kind, "
                 "t_hierarchy, delta and max_suppression");
    {
        Spi spi;  // the search's own checks of each key's type and range
        spi.run("SELECT privrisk.check_options('search', $1)", {SpiArg{JSONBOID, constraints, false}}, true);
        spi.finish();
    }
    std::map<std::string, std::string> given = json_option_texts(constraints);
    Constraints q = parse_constraints(given);
    if (!q.k && !q.max_risk && !q.l && !q.t && !q.delta)
        fail(ErrorKind::InvalidParameter,
             "set_suppression: constraints name no per-class constraint (k, max_risk, l, t or delta): nothing would "
             "decide which classes are withheld");
    if ((q.l || q.t || q.delta) && !sensitive)
        fail(ErrorKind::InvalidParameter, "set_suppression: the l, t and delta constraints need a sensitive column");

    Relation source = open_policy_source(policy);
    std::vector<std::string> columns;
    for (const auto& c : qi) {
        if (std::find(columns.begin(), columns.end(), *c) != columns.end())
            fail(ErrorKind::InvalidParameter,
                 "set_suppression: quasi-identifier " + quote_value(*c) + " is listed twice");
        require_column(source, *c, "quasi-identifier", policy.name);
        columns.push_back(*c);
    }
    if (sensitive) {
        require_column(source, *sensitive, "sensitive column", policy.name);
        if (std::find(columns.begin(), columns.end(), *sensitive) != columns.end())
            fail(ErrorKind::InvalidParameter, "set_suppression: " + quote_value(*sensitive) +
                                                  " cannot be both a quasi-identifier and the sensitive column");
    }
    Oid relid = RelationGetRelid(source);
    pg_call([&] { table_close(source, AccessShareLock); });
    // A release counts the columns its owner approved, by number (scan_suppression.cpp):
    // a name that now stands for another column is refused until the columns are approved again.
    std::vector<std::string> named = columns;
    if (sensitive) named.push_back(*sensitive);
    for (const std::string& c : named) {
        const BoundColumn* approved = approved_column(policy, c);
        const char* column = c.c_str();
        AttrNumber now = pg_call([&] { return get_attnum(relid, column); });
        if (approved && approved->attno != now)
            fail(ErrorKind::InvalidParameter,
                 "set_suppression: column " + quote_value(c) + " of the source of policy " + quote_value(policy.name) +
                     " is not the column of that name its owner approved (renamed or replaced since); approve the "
                     "source's columns again with privrisk.refresh_policy first");
    }
    // Over shards each shard releases its own rows: classes that span shards are
    // counted nowhere whole, so no shard could decide them (docs/scale-out.md).
    if (has_foreign_partitions(relid))
        fail(ErrorKind::InvalidParameter,
             "set_suppression: policy " + quote_value(policy.name) +
                 " is over shards (its source has foreign partitions): record suppression is decided from the "
                 "whole source's classes, which no shard holds; suppression over shards is not supported");

    AsCatalogOwner owner;
    Spi spi;
    spi.run(
        "INSERT INTO privrisk.policy_suppression (policy, quasi_identifiers, sensitive, constraints) "
        "VALUES ($1, $2::pg_catalog.name[], $3, $4) ON CONFLICT (policy) DO UPDATE SET "
        "quasi_identifiers = excluded.quasi_identifiers, sensitive = excluded.sensitive, "
        "constraints = excluded.constraints",
        {text_arg(policy.name), text_array_arg(columns), sensitive ? text_arg(*sensitive) : SpiArg{TEXTOID, 0, true},
         SpiArg{JSONBOID, constraints, false}},
        false);
    spi.finish();
    PG_RETURN_VOID();
}

// policy_source(policy): the source of a policy the caller owns, or NULL when it has
// no such policy (apply_generalization: add to it, or create it).
PRIVRISK_FUNCTION(privrisk_policy_source) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    std::optional<std::string> key = resolve_policy(name, PolicyUse::Own);
    std::optional<Policy> policy = key ? find_policy(*key, true) : std::nullopt;
    if (!policy) PG_RETURN_NULL();
    PG_RETURN_OID(policy->source);
}

// release_suppression(view): the record suppression of a release view as a read
// of it now decides it — {"rows", "rows_released", "rows_suppressed",
// "max_suppression", "within"} — or NULL when the view is not a release view of a
// suppressing policy. Reads the view as the caller (count(*) through it), so it
// says nothing to a role that may not read the view.
PRIVRISK_FUNCTION(privrisk_release_suppression) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    Oid view = PG_GETARG_OID(0);
    std::optional<std::string> policy = policy_of_view(view);
    if (!policy || !find_suppression(*policy)) PG_RETURN_NULL();
    std::string name = pg_call([&] {
        char* schema = get_namespace_name(get_rel_namespace(view));
        char* rel = get_rel_name(view);
        return quote_qualified_identifier(schema, rel);
    });
    forget_suppression_decision();
    long released;
    {
        Spi spi;
        spi.run(("SELECT pg_catalog.count(*) FROM " + name).c_str(), {}, true);
        released = spi.int8(0, 1);
        spi.finish();
    }
    int64 rows, suppressed;
    double max_suppression;
    bool within;
    if (!last_suppression_decision(policy->c_str(), &rows, &suppressed, &max_suppression, &within))
        fail(ErrorKind::Internal, "release_suppression: the read of " + name + " made no suppression decision");
    std::string json = "{\"rows\": " + std::to_string(rows) + ", \"rows_released\": " + std::to_string(released) +
                       ", \"rows_suppressed\": " + std::to_string(suppressed) +
                       ", \"max_suppression\": " + json_number(max_suppression) +
                       ", \"within\": " + (within ? "true" : "false") + "}";
    const char* text = json.c_str();
    PG_RETURN_DATUM(pg_call([&] { return DirectFunctionCall1(jsonb_in, CStringGetDatum(text)); }));
}
