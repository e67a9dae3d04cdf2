// create_policy, add_rule, refresh_policy, drop_policy, create_release_view.
// Each checks that the caller owns the source, validates everything, and only
// then writes the catalog (as its owner), in one statement per change.
#include <algorithm>

#include "common/catalog_owner.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "hierarchy/hierarchy_coverage.hpp"
#include "release/condition_binding.hpp"
#include "release/policy_access.hpp"
#include "release/policy_catalog.hpp"
#include "release/pseudonym_key.hpp"
#include "release/release_shape.hpp"
#include "release/release_verdict.hpp"
#include "release/safe_default.hpp"
#include "release/shard_release.hpp"
#include "labels/column_labels.hpp"
#include "common/spi.hpp"
#include "common/sql_text.hpp"

extern "C" {
#include "catalog/dependency.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// Writes one rule of `policy` whose condition is bound (as the catalog's owner).
void insert_rule(Spi& spi, const std::string& policy, const PolicyRule& rule, const BoundCondition& bound) {
    const bool gen = rule.op == DisclosureOp::Gen;
    // A catalog not yet updated to 0.14 has no column_number: $11 then goes unused.
    spi.run(policy_catalog_current()
                ? "INSERT INTO privrisk.policy_rule(policy, rule, column_name, operator, condition, hierarchy, level, "
                  "condition_tree, condition_columns, hierarchy_version, column_number) "
                  "VALUES ($1, $2, $3::pg_catalog.name, $4, $5, $6, $7, $8, $9::pg_catalog.name[], $10, $11)"
                : "INSERT INTO privrisk.policy_rule(policy, rule, column_name, operator, condition, hierarchy, level, "
                  "condition_tree, condition_columns, hierarchy_version) "
                  "VALUES ($1, $2, $3::pg_catalog.name, $4, $5, $6, $7, $8, $9::pg_catalog.name[], $10)",
            {text_arg(policy), int4_arg(rule.number), text_arg(rule.column), text_arg(disclosure_op_name(rule.op)),
             text_arg(rule.condition), gen ? text_arg(rule.hierarchy) : SpiArg{TEXTOID, 0, true},
             gen ? int4_arg(rule.level) : SpiArg{INT4OID, 0, true}, text_arg(bound.tree), text_array_arg(bound.columns),
             SpiArg{INT8OID, Int64GetDatum(rule.hierarchy_version), !gen}, int4_arg(rule.attno)},
            false);
}

// The source's columns as they are now, approved: every live column, guarded
// where a rule or a label names it.
std::vector<BoundColumn> current_columns(Relation source, const std::vector<PolicyRule>& rules) {
    std::vector<TableColumn> labelled = table_columns(RelationGetRelid(source));
    std::vector<BoundColumn> columns;
    TupleDesc desc = RelationGetDescr(source);
    for (int i = 0; i < desc->natts; ++i) {
        Form_pg_attribute a = TupleDescAttr(desc, i);
        if (a->attisdropped) continue;
        bool guarded =
            std::any_of(rules.begin(), rules.end(), [&](const PolicyRule& r) { return r.attno == a->attnum; });
        for (const TableColumn& c : labelled) guarded |= c.label && c.name == NameStr(a->attname);
        columns.push_back({a->attnum, NameStr(a->attname), a->atttypid, guarded});
    }
    return columns;
}

// Replaces the policy's approved columns (as the catalog's owner).
void write_columns(Spi& spi, const std::string& policy, const std::vector<BoundColumn>& columns) {
    if (!policy_catalog_current()) return;  // a catalog not yet updated to 0.14 records no columns
    std::vector<long> numbers, types, guarded;
    std::vector<std::string> names;
    for (const BoundColumn& c : columns) {
        numbers.push_back(c.attno);
        names.push_back(c.name);
        types.push_back(static_cast<long>(c.type));
        guarded.push_back(c.guarded);
    }
    spi.run("DELETE FROM privrisk.policy_column WHERE policy OPERATOR(pg_catalog.=) $1", {text_arg(policy)}, false);
    spi.run(
        "INSERT INTO privrisk.policy_column(policy, column_number, column_name, column_type, guarded) "
        "SELECT $1, u.n::pg_catalog.int2, u.c::pg_catalog.name, u.t::pg_catalog.oid::pg_catalog.regtype, "
        "u.g OPERATOR(pg_catalog.<>) 0 FROM ROWS FROM (pg_catalog.unnest($2::pg_catalog.int8[]), "
        "pg_catalog.unnest($3::pg_catalog.text[]), pg_catalog.unnest($4::pg_catalog.int8[]), "
        "pg_catalog.unnest($5::pg_catalog.int8[])) AS u(n, c, t, g)",
        {text_arg(policy), int8_array_arg(numbers), text_array_arg(names), int8_array_arg(types),
         int8_array_arg(guarded)},
        false);
}

// The number of the source's column `name` (a live user column), or an error naming it.
AttrNumber column_number(Relation source, const std::string& column, const std::string& policy) {
    const char* name = column.c_str();
    Oid relid = RelationGetRelid(source);
    AttrNumber attno = pg_call([&] { return get_attnum(relid, name); });
    if (attno == InvalidAttrNumber || attno < 0)
        fail(ErrorKind::UndefinedObject, "column " + quote_value(column) + " of " +
                                             std::string(pg_call([&] { return get_rel_name(relid); })) +
                                             " (the source of policy " + quote_value(policy) + ") does not exist");
    return attno;
}

// The view depends on the source, as a view of the table would: dropping the
// source needs CASCADE, which drops the view too. Recorded once.
void depend_on_source(Oid view, Oid source) {
    if (!pg_call([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(view)); })) return;
    Spi spi;
    bool recorded = spi.run(
                        "SELECT 1 FROM pg_catalog.pg_depend WHERE classid OPERATOR(pg_catalog.=) "
                        "'pg_catalog.pg_class'::pg_catalog.regclass AND objid OPERATOR(pg_catalog.=) $1 AND "
                        "refclassid OPERATOR(pg_catalog.=) 'pg_catalog.pg_class'::pg_catalog.regclass AND "
                        "refobjid OPERATOR(pg_catalog.=) $2 AND refobjsubid OPERATOR(pg_catalog.=) 0",
                        {oid_arg(OIDOID, view), oid_arg(OIDOID, source)}, true) > 0;
    spi.finish();
    if (recorded) return;
    pg_call([&] {
        ObjectAddress dependent, referenced;
        ObjectAddressSet(dependent, RelationRelationId, view);
        ObjectAddressSet(referenced, RelationRelationId, source);
        recordDependencyOn(&dependent, &referenced, DEPENDENCY_NORMAL);
    });
}

}  // namespace

// create_policy(name, source, unlabelled): safe by default (docs/release.md):
// every release of the policy hides the columns labelled identifier, and with
// unlabelled => 'hide' every column without a label, and the columns labelled
// quasi_identifier or sensitive until a rule names them, as the labels are when
// the release is read (add_default_rules). Nothing is generalized implicitly.
PRIVRISK_FUNCTION(privrisk_create_policy) {
    std::string name(text_arg_view(fcinfo, 0, "policy name"));
    check_object_name("policy", name);
    if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "create_policy: source must not be NULL");
    enum class Unlabelled { Publish, Hide };
    Unlabelled unlabelled = PG_NARGS() > 2
                                ? choice_arg<Unlabelled>(fcinfo, 2, "create_policy: unlabelled", "publish",
                                                         {{"publish", Unlabelled::Publish}, {"hide", Unlabelled::Hide}})
                                : Unlabelled::Publish;
    Policy policy{name, name, PG_GETARG_OID(1), {}, unlabelled == Unlabelled::Hide, {}};
    require_source_owner(policy.source, "create a policy on it");
    Relation source = open_policy_source(policy);
    bool temporary = source->rd_rel->relpersistence == RELPERSISTENCE_TEMP;
    Oid schema = RelationGetNamespace(source);
    std::vector<BoundColumn> columns = current_columns(source, {});
    pg_call([&] { table_close(source, AccessShareLock); });
    if (temporary)  // its catalog rows would outlive it (no event fires when a session ends)
        fail(ErrorKind::InvalidParameter,
             "create_policy: the source is a temporary table; a policy needs a permanent one");
    // Policies are named per schema, the source's, like the relations in it: only
    // a role that may create objects there can learn which names are taken.
    if (pg_call([&] { return pg_namespace_aclcheck(schema, GetUserId(), ACL_CREATE); }) != ACLCHECK_OK)
        fail(ErrorKind::PermissionDenied,
             "create_policy: permission denied for schema " +
                 quote_value(pg_call([&] { return get_namespace_name(schema); })) +
                 " (a policy is named in its source's schema; creating one there needs CREATE on it)");
    const bool current = policy_catalog_current();  // not yet updated to 0.14: names are keys
    policy.name = current ? policy_key(schema, name) : name;
    std::vector<std::string> hidden;  // in every row, whatever rules come (quasi-identifiers until a rule names them)
    for (const DefaultHidden& h : hidden_by_default(policy))
        if (h.always && !h.pseudonymized) hidden.push_back(h.column);
    AsCatalogOwner owner;
    Spi spi;
    if (spi.run("SELECT 1 FROM privrisk.policy WHERE name OPERATOR(pg_catalog.=) $1", {text_arg(policy.name)}, true) >
        0)
        fail(ErrorKind::DuplicateObject, "policy " + quote_value(policy.name) + " already exists");
    const char* user = pg_call([] { return GetUserNameFromId(GetOuterUserId(), false); });
    spi.run(current ? "INSERT INTO privrisk.policy(name, base_name, source, created_by, unlabelled) "
                      "VALUES ($1, $2, $3, $4, $5)"
            : PG_NARGS() > 2  // 0.11's catalog (and its create_policy) has no unlabelled column
                ? "INSERT INTO privrisk.policy(name, source, created_by, unlabelled) VALUES ($1, $3, $4, $5)"
                : "INSERT INTO privrisk.policy(name, source, created_by) VALUES ($1, $3, $4)",
            {text_arg(policy.name), text_arg(name), oid_arg(REGCLASSOID, policy.source), text_arg(user),
             text_arg(policy.unlabelled_hidden ? "hide" : "publish")},
            false);
    write_columns(spi, policy.name, columns);
    spi.finish();
    if (!hidden.empty()) {
        std::string hidden_list;
        for (const std::string& c : hidden) hidden_list += (hidden_list.empty() ? "" : ", ") + quote_value(c);
        std::string message =
            "create_policy: " + quote_value(policy.name) + " hides " + hidden_list + " in every row (" +
            (policy.unlabelled_hidden ? "labelled identifier, or unlabelled" : "labelled identifier") +
            "; as the labels are when a release is read)";
        pg_call([&] { ereport(NOTICE, (errmsg("%s", message.c_str()))); });
    }
    PG_RETURN_VOID();
}

PRIVRISK_FUNCTION(privrisk_add_rule) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    Policy policy = load_owned_policy(name);
    PolicyRule rule;
    rule.column = std::string(text_arg_view(fcinfo, 1, "column"));
    std::string op(text_arg_view(fcinfo, 2, "op"));
    std::optional<DisclosureOp> known = disclosure_op(op);
    if (!known)
        fail(ErrorKind::InvalidParameter,
             "add_rule: op must be 'hide', 'gen' or 'pseudonymize', not " + quote_value(op));
    rule.op = *known;
    if (PG_ARGISNULL(3))
        fail(ErrorKind::InvalidParameter, "add_rule: condition must not be NULL (use 'false' to protect every row)");
    rule.condition = std::string(text_arg_view(fcinfo, 3, "condition"));
    rule.number = static_cast<int>(policy.rules.size()) + 1;
    for (const PolicyRule& r : policy.rules) rule.number = std::max(rule.number, r.number + 1);
    if (rule.op != DisclosureOp::Gen) {
        if (!PG_ARGISNULL(4) || !PG_ARGISNULL(5))
            fail(ErrorKind::InvalidParameter,
                 "add_rule: a " + std::string(disclosure_op_name(rule.op)) + " rule takes no hierarchy or level");
        rule.level = 0;
    } else {
        rule.hierarchy = std::string(text_arg_view(fcinfo, 4, "hierarchy (a gen rule needs one)"));
        rule.level = int4_arg_value(fcinfo, 5, "level (a gen rule needs one)");
        cached_hierarchy(rule.hierarchy, &rule.hierarchy_version);  // the version approved now
        gen_rule_height(rule, "add_rule", name);
    }
    Relation source = open_policy_source(policy);
    rule.attno = column_number(source, rule.column, policy.name);
    policy.rules.push_back(rule);
    release_shape(policy, source);       // the approved columns stand; one hierarchy per generalized column
    if (rule.op == DisclosureOp::Gen) {  // the hierarchy fits the column: its values now are leaves of it
        SourceRelation relation = source_relation(policy.source);
        require_covered(relation, source_column(relation, rule.column, "add_rule: column"), rule.hierarchy);
    }
    std::string what = "condition of the rule on column " + quote_value(rule.column);
    BoundCondition bound = bind_condition(source, rule.condition, what);
    std::vector<BoundColumn> columns = current_columns(source, policy.rules);
    pg_call([&] { table_close(source, AccessShareLock); });

    if (rule.op == DisclosureOp::Pseudonymize) ensure_pseudonym_key(policy.name);
    AsCatalogOwner owner;
    Spi spi;
    insert_rule(spi, policy.name, rule, bound);
    write_columns(spi, policy.name, columns);
    spi.finish();
    PG_RETURN_INT32(rule.number);
}

// refresh_policy(policy): its owner approves the source's columns as they are
// now, binds again every condition whose columns moved or changed type, and
// approves the current version of every hierarchy its rules use. A rule follows
// its column by number through a rename (and says so); after a restore that
// renumbered the columns (the approved names, in order, are the live ones) it
// follows the names. Returns the rule count.
PRIVRISK_FUNCTION(privrisk_refresh_policy) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    Policy policy = load_owned_policy(name);
    for (PolicyRule& r : policy.rules)  // approve the hierarchies as they are now
        if (r.op == DisclosureOp::Gen) cached_hierarchy(r.hierarchy, &r.hierarchy_version);
    Relation source = open_policy_source(policy);
    TupleDesc desc = RelationGetDescr(source);
    std::vector<std::string> live, approved;
    bool moved = false;
    for (int i = 0; i < desc->natts; ++i)
        if (!TupleDescAttr(desc, i)->attisdropped) live.push_back(NameStr(TupleDescAttr(desc, i)->attname));
    for (const BoundColumn& c : policy.columns) {
        approved.push_back(c.name);
        moved |= c.attno < 1 || c.attno > desc->natts || c.name != NameStr(TupleDescAttr(desc, c.attno - 1)->attname);
    }
    const bool renumbered = moved && live == approved;
    std::vector<std::string> notices;
    for (PolicyRule& r : policy.rules) {
        const std::string rule = "rule " + std::to_string(r.number) + " of policy " + quote_value(policy.name);
        if (renumbered) {
            r.attno = column_number(source, r.column, policy.name);
            continue;
        }
        if (r.attno < 1 || r.attno > desc->natts || TupleDescAttr(desc, r.attno - 1)->attisdropped)
            fail(ErrorKind::InvalidParameter, "refresh_policy: the column of " + rule + ", " + quote_value(r.column) +
                                                  ", was dropped; drop the policy and create it again");
        const std::string now = NameStr(TupleDescAttr(desc, r.attno - 1)->attname);
        if (now == r.column) continue;
        // Renamed in place, its new name is new; a name the policy approved at
        // another number means the columns moved (a restore) as well as changed.
        if (std::find(approved.begin(), approved.end(), now) != approved.end())
            fail(ErrorKind::InvalidParameter,
                 "refresh_policy: the column of " + rule + " was " + quote_value(r.column) + " (number " +
                     std::to_string(r.attno) + "), which is now " + quote_value(now) +
                     ", another column the policy knew: the source's columns moved and changed; drop the policy "
                     "and create it again");
        std::string notice = rule + " now protects column " + quote_value(now) + " (number " + std::to_string(r.attno) +
                             "), renamed from " + quote_value(r.column);
        const char* was = r.column.c_str();
        AttrNumber other = pg_call([&] { return get_attnum(RelationGetRelid(source), was); });
        if (other > 0)
            notice += "; column " + quote_value(r.column) + " (number " + std::to_string(other) +
                      ") is another column, which no rule of the policy names";
        notices.push_back(notice);
        r.column = now;
    }
    Policy checked = policy;
    checked.columns.clear();         // approved again below
    release_shape(checked, source);  // columns exist; levels fit the hierarchies as they are now
    std::vector<BoundCondition> bound;
    for (const PolicyRule& r : policy.rules) {
        std::optional<BoundCondition> kept = renumbered ? std::nullopt : bound_in_place(source, r);
        if (kept) {
            bound.push_back(*kept);
            continue;
        }
        BoundCondition again = bind_condition(source, r.condition, "condition of rule " + std::to_string(r.number));
        // Bound again from its text, a condition must read the columns it read:
        // a name that now stands for a new column would change what it tests.
        if (!renumbered && !r.condition_tree.empty() && bound_attnos(again.tree) != bound_attnos(r.condition_tree))
            fail(ErrorKind::InvalidParameter,
                 "refresh_policy: the condition of rule " + std::to_string(r.number) + " of policy " +
                     quote_value(policy.name) + ", " + quote_value(r.condition) +
                     ", would now read other columns than the ones it was bound with (a column it names was renamed, "
                     "retyped or replaced); drop the policy and create it again");
        bound.push_back(again);
    }
    std::vector<BoundColumn> columns = current_columns(source, policy.rules);
    pg_call([&] { table_close(source, AccessShareLock); });
    AsCatalogOwner owner;
    Spi spi;
    const bool current = policy_catalog_current();  // not yet updated to 0.14: no column_number ($6, $7 unused)
    for (std::size_t i = 0; i < policy.rules.size(); ++i)
        spi.run(
            current ? "UPDATE privrisk.policy_rule SET condition_tree = $3, condition_columns = "
                      "$4::pg_catalog.name[], hierarchy_version = $5, column_number = $6, column_name = "
                      "$7::pg_catalog.name WHERE policy OPERATOR(pg_catalog.=) $1 AND rule OPERATOR(pg_catalog.=) $2"
                    : "UPDATE privrisk.policy_rule SET condition_tree = $3, condition_columns = "
                      "$4::pg_catalog.name[], hierarchy_version = $5 WHERE policy OPERATOR(pg_catalog.=) $1 "
                      "AND rule OPERATOR(pg_catalog.=) $2",
            {text_arg(policy.name), int4_arg(policy.rules[i].number), text_arg(bound[i].tree),
             text_array_arg(bound[i].columns),
             SpiArg{INT8OID, Int64GetDatum(policy.rules[i].hierarchy_version), policy.rules[i].op != DisclosureOp::Gen},
             int4_arg(policy.rules[i].attno), text_arg(policy.rules[i].column)},
            false);
    write_columns(spi, policy.name, columns);
    std::vector<Oid> views;
    if (current) {
        // After a restore that renumbered the columns, each release view's columns
        // follow their names (a name no longer there becomes 0: refused as dropped).
        if (renumbered)
            spi.run(
                "UPDATE privrisk.release_view SET column_numbers = (SELECT pg_catalog.array_agg("
                "COALESCE(a.attnum, 0) ORDER BY u.i) FROM pg_catalog.unnest(release_view.column_names) WITH "
                "ORDINALITY AS u(n, i) LEFT JOIN pg_catalog.pg_attribute a ON a.attrelid OPERATOR(pg_catalog.=) "
                "$2 AND a.attname OPERATOR(pg_catalog.=) u.n AND a.attnum OPERATOR(pg_catalog.>) 0 AND NOT "
                "a.attisdropped) WHERE policy OPERATOR(pg_catalog.=) $1 AND column_names IS NOT NULL",
                {text_arg(policy.name), oid_arg(OIDOID, policy.source)}, false);
        uint64 n = spi.run(
            "SELECT view::pg_catalog.oid::pg_catalog.int8 FROM privrisk.release_view "
            "WHERE policy OPERATOR(pg_catalog.=) $1",
            {text_arg(policy.name)}, false);
        for (uint64 i = 0; i < n; ++i) views.push_back(static_cast<Oid>(spi.int8(i, 1)));
    }
    spi.finish();
    for (Oid view : views) depend_on_source(view, policy.source);  // pg_dump keeps no such dependency
    for (const std::string& notice : notices) pg_call([&] { ereport(NOTICE, (errmsg("%s", notice.c_str()))); });
    PG_RETURN_INT32(static_cast<int>(policy.rules.size()));
}

// drop_policy(policy, cascade): a policy with release views is dropped only with
// them (cascade => true), as PostgreSQL drops a view's dependents: no view ever
// reads a policy name that another policy could take.
PRIVRISK_FUNCTION(privrisk_drop_policy) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    const bool cascade = PG_NARGS() > 1 && !PG_ARGISNULL(1) && PG_GETARG_BOOL(1);
    Policy policy = load_owned_policy(name);  // a policy whose source is gone is a superuser's to drop
    // Locked first: a release view being made for it (whose catalog row holds a
    // key share of the policy's) commits before the views are read.
    std::vector<Oid> registered;
    {
        AsCatalogOwner owner;
        Spi spi;
        spi.run("SELECT 1 FROM privrisk.policy WHERE name OPERATOR(pg_catalog.=) $1 FOR UPDATE",
                {text_arg(policy.name)}, false);
        uint64 n = spi.run(
            "SELECT view::pg_catalog.oid::pg_catalog.int8 FROM privrisk.release_view "
            "WHERE policy OPERATOR(pg_catalog.=) $1",
            {text_arg(policy.name)}, false);
        for (uint64 i = 0; i < n; ++i) registered.push_back(static_cast<Oid>(spi.int8(i, 1)));
        spi.finish();
    }
    std::vector<std::string> views;
    for (Oid view : registered) {
        char* relname = pg_call([&] { return get_rel_name(view); });
        if (!relname) continue;  // gone: its registration goes with the policy
        char* schema = pg_call([&] { return get_namespace_name(get_rel_namespace(view)); });
        views.push_back(pg_call([&] { return quote_qualified_identifier(schema, relname); }));
    }
    if (!views.empty() && !cascade) {
        std::string list;
        for (const std::string& v : views) list += (list.empty() ? "" : ", ") + v;
        fail(ErrorKind::DependentObjectsStillExist,
             "cannot drop policy " + quote_value(policy.name) + " because its release views depend on it: " + list +
                 "; drop them first, or call privrisk.drop_policy(policy, cascade => true) to drop them too");
    }
    {
        Spi spi;  // as the caller: dropping a view is its owner's right
        for (const std::string& v : views) spi.run(("DROP VIEW IF EXISTS " + v + " CASCADE").c_str(), {}, false);
        spi.finish();
    }
    AsCatalogOwner owner;
    Spi spi;
    spi.run("DELETE FROM privrisk.policy WHERE name OPERATOR(pg_catalog.=) $1", {text_arg(policy.name)}, false);
    spi.finish();
    PG_RETURN_VOID();
}

// create_release_view(policy, view_name, profile DEFAULT NULL, override DEFAULT false)
PRIVRISK_FUNCTION(privrisk_create_release_view) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    std::string view_name(text_arg_view(fcinfo, 1, "view name"));
    const bool profiled = PG_NARGS() > 2 && !PG_ARGISNULL(2);  // 0.14's function has two arguments
    const std::string profile = profiled ? std::string(text_arg_view(fcinfo, 2, "profile")) : std::string();
    if (PG_NARGS() > 3 && PG_ARGISNULL(3))
        fail(ErrorKind::InvalidParameter, "create_release_view: override must not be NULL");
    const bool override = PG_NARGS() > 3 && PG_GETARG_BOOL(3);
    if (override && !profiled)
        fail(ErrorKind::InvalidParameter,
             "create_release_view: override => true needs a profile (it publishes a release that fails one)");
    Policy policy = load_owned_policy(name);
    std::vector<ReleasedColumn> shape = release_shape(policy);
    // Safe by default: the labelled columns the view gives as ⊥ because no rule names them
    // (identifiers always); and, on a labelled table, unlabelled columns it publishes as they are.
    std::vector<TableColumn> columns = table_columns(policy.source);  // the caller owns it
    auto ruled = [&](const std::string& column) {
        return std::any_of(policy.rules.begin(), policy.rules.end(),
                           [&](const PolicyRule& r) { return r.column == column; });
    };
    const bool labelled = std::any_of(columns.begin(), columns.end(), [](const TableColumn& c) { return c.label; });
    notice_hidden_by_default(policy, "create_release_view");
    if (labelled && !policy.unlabelled_hidden) {
        std::string unlabelled;
        for (const TableColumn& c : columns)
            if (!c.label && !ruled(c.name)) unlabelled += (unlabelled.empty() ? "" : ", ") + quote_value(c.name);
        if (!unlabelled.empty()) {
            std::string message =
                "create_release_view: columns without a label are published as they are: " + unlabelled +
                "; label them, or create the policy with unlabelled => 'hide'";
            pg_call([&] { ereport(WARNING, (errmsg("%s", message.c_str()))); });
        }
    }
    // The view's name as the caller wrote it, its schema resolved on the
    // caller's path (the statement itself runs under the pinned one), every
    // part quoted again; the policy goes in as a literal. Nothing is spliced.
    const char* view_text = view_name.c_str();
    RangeVar* target = pg_call([&] { return makeRangeVarFromNameList(stringToQualifiedNameList(view_text)); });
    if (target->relpersistence == RELPERSISTENCE_TEMP ||
        (target->schemaname &&
         pg_call([&] { return isAnyTempNamespace(get_namespace_oid(target->schemaname, true)); })))
        fail(ErrorKind::InvalidParameter, "create_release_view: a release view must not be temporary");
    Oid schema = pg_call([&] { return RangeVarGetCreationNamespace(target); });
    if (pg_call([&] { return isAnyTempNamespace(schema); }))
        fail(ErrorKind::InvalidParameter, "create_release_view: a release view must not be temporary (" +
                                              quote_value(view_name) + " would be created in pg_temp)");
    // Over shards: the shards' release views, read through postgres_fdw (docs/scale-out.md).
    const std::vector<ShardTable> shards = shard_tables(policy.source, name);
    if (!shards.empty()) {
        // Each shard's policy has its own key: one person would get a pseudonym per shard.
        for (const PolicyRule& r : policy.rules)
            if (r.op == DisclosureOp::Pseudonymize)
                fail(ErrorKind::InvalidParameter,
                     "create_release_view: policy " + quote_value(policy.name) + " pseudonymizes column " +
                         quote_value(r.column) + " (rule " + std::to_string(r.number) +
                         ") and its source is sharded: each shard's policy has its own pseudonym key, so one value "
                         "would get a different pseudonym on each shard; pseudonymize is not supported over shards");
        create_shard_release_view(policy, shape, shards, schema, target->relname);
    } else {
        const std::string sql = "CREATE VIEW " + sql_identifier(pg_call([&] { return get_namespace_name(schema); })) +
                                "." + sql_identifier(target->relname) + " AS SELECT * FROM privrisk.release(" +
                                sql_literal(policy.name) + ") AS r(" + column_definitions(shape) + ")";
        Spi spi;
        spi.run(sql.c_str(), {}, false);  // as the caller: the view is theirs to grant
        spi.finish();
    }
    const char* relname = target->relname;
    Oid view = pg_call([&] { return get_relname_relid(relname, schema); });
    depend_on_source(view, policy.source);
    // What the view releases, by the source's column numbers: a column renamed
    // or dropped since, or a new one of the same name, is not read through it.
    std::vector<long> numbers;
    std::vector<std::string> names;
    for (const ReleasedColumn& c : shape) {
        numbers.push_back(c.attno);
        names.push_back(c.name);
    }
    {
        AsCatalogOwner owner;
        Spi catalog;
        catalog.run(policy_catalog_current()
                        ? "INSERT INTO privrisk.release_view(view, policy, column_numbers, column_names) "
                          "VALUES ($1, $2, $3::pg_catalog.int8[]::pg_catalog.int2[], $4::pg_catalog.name[])"
                        : "INSERT INTO privrisk.release_view(view, policy) VALUES ($1, $2)",
                    {oid_arg(REGCLASSOID, view), text_arg(policy.name), int8_array_arg(numbers), text_array_arg(names)},
                    false);
        catalog.finish();
    }
    if (profiled) bind_verdict(view, policy.name, profile, override);
    PG_RETURN_OID(view);
}
