// create_policy, add_rule, refresh_policy, drop_policy, create_release_view.
// Each checks that the caller owns the source, validates everything, and only
// then writes the catalog (as its owner), in one statement per change.
#include <algorithm>

#include "common/args.hpp"
#include "common/error.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "release/condition_binding.hpp"
#include "release/policy_access.hpp"
#include "release/policy_catalog.hpp"
#include "release/release_shape.hpp"
#include "release/shard_release.hpp"
#include "labels/column_labels.hpp"
#include "common/spi.hpp"
#include "common/sql_text.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// Writes one rule of `policy` whose condition is bound (as the catalog's owner).
void insert_rule(Spi& spi, const std::string& policy, const PolicyRule& rule, const BoundCondition& bound) {
    const bool gen = rule.op == DisclosureOp::Gen;
    spi.run("INSERT INTO privrisk.policy_rule(policy, rule, column_name, operator, condition, hierarchy, level, "
            "condition_tree, condition_columns, hierarchy_version) "
            "VALUES ($1, $2, $3::pg_catalog.name, $4, $5, $6, $7, $8, $9::pg_catalog.name[], $10)",
            {text_arg(policy), int4_arg(rule.number), text_arg(rule.column), text_arg(gen ? "gen" : "hide"),
             text_arg(rule.condition), gen ? text_arg(rule.hierarchy) : SpiArg{TEXTOID, 0, true},
             gen ? int4_arg(rule.level) : SpiArg{INT4OID, 0, true}, text_arg(bound.tree),
             text_array_arg(bound.columns), SpiArg{INT8OID, Int64GetDatum(rule.hierarchy_version), !gen}},
            false);
}

}  // namespace

// create_policy(name, source, unlabelled): privacy by default (docs/labels.md):
// every release of the policy hides the columns labelled identifier, and with
// unlabelled => 'hide' every column without a label, as the labels are when the
// release is read (add_default_rules). Nothing is generalized implicitly.
PRIVRISK_FUNCTION(privrisk_create_policy) {
    std::string name(text_arg_view(fcinfo, 0, "policy name"));
    check_object_name("policy", name);
    if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "create_policy: source must not be NULL");
    enum class Unlabelled { Publish, Hide };
    Unlabelled unlabelled = PG_NARGS() > 2 ? choice_arg<Unlabelled>(fcinfo, 2, "create_policy: unlabelled", "publish",
                                                                    {{"publish", Unlabelled::Publish},
                                                                     {"hide", Unlabelled::Hide}})
                                           : Unlabelled::Publish;
    Policy policy{name, PG_GETARG_OID(1), {}, unlabelled == Unlabelled::Hide};
    require_source_owner(policy.source, "create a policy on it");
    Relation source = open_policy_source(policy);
    bool temporary = source->rd_rel->relpersistence == RELPERSISTENCE_TEMP;
    pg_call([&] { table_close(source, AccessShareLock); });
    if (temporary)  // its catalog rows would outlive it (no event fires when a session ends)
        fail(ErrorKind::InvalidParameter, "create_policy: the source is a temporary table; a policy needs a permanent one");
    std::vector<std::string> hidden = hidden_by_default(policy.source, policy.unlabelled_hidden);
    AsCatalogOwner owner;
    Spi spi;
    if (spi.run("SELECT 1 FROM privrisk.policy WHERE name OPERATOR(pg_catalog.=) $1", {text_arg(name)}, true) > 0)
        fail(ErrorKind::DuplicateObject, "policy " + quote_value(name) + " already exists");
    const char* user = pg_call([] { return GetUserNameFromId(GetOuterUserId(), false); });
    if (PG_NARGS() > 2)
        spi.run("INSERT INTO privrisk.policy(name, source, created_by, unlabelled) VALUES ($1, $2, $3, $4)",
                {text_arg(name), oid_arg(REGCLASSOID, policy.source), text_arg(user),
                 text_arg(policy.unlabelled_hidden ? "hide" : "publish")},
                false);
    else  // a database not yet updated from 0.11: its catalog has no unlabelled column
        spi.run("INSERT INTO privrisk.policy(name, source, created_by) VALUES ($1, $2, $3)",
                {text_arg(name), oid_arg(REGCLASSOID, policy.source), text_arg(user)}, false);
    spi.finish();
    if (!hidden.empty()) {
        std::string columns;
        for (const std::string& c : hidden) columns += (columns.empty() ? "" : ", ") + quote_value(c);
        std::string message = "create_policy: " + quote_value(name) + " hides " + columns + " in every row (" +
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
    if (op != "hide" && op != "gen")
        fail(ErrorKind::InvalidParameter, "add_rule: op must be 'hide' or 'gen', not " + quote_value(op));
    rule.op = op == "hide" ? DisclosureOp::Hide : DisclosureOp::Gen;
    if (PG_ARGISNULL(3))
        fail(ErrorKind::InvalidParameter, "add_rule: condition must not be NULL (use 'false' to protect every row)");
    rule.condition = std::string(text_arg_view(fcinfo, 3, "condition"));
    rule.number = static_cast<int>(policy.rules.size()) + 1;
    for (const PolicyRule& r : policy.rules) rule.number = std::max(rule.number, r.number + 1);
    if (rule.op == DisclosureOp::Hide) {
        if (!PG_ARGISNULL(4) || !PG_ARGISNULL(5))
            fail(ErrorKind::InvalidParameter, "add_rule: a hide rule takes no hierarchy or level");
        rule.level = 0;
    } else {
        rule.hierarchy = std::string(text_arg_view(fcinfo, 4, "hierarchy (a gen rule needs one)"));
        rule.level = int4_arg_value(fcinfo, 5, "level (a gen rule needs one)");
        cached_hierarchy(rule.hierarchy, &rule.hierarchy_version);  // the version approved now
        gen_rule_height(rule, "add_rule", name);
    }
    policy.rules.push_back(rule);
    Relation source = open_policy_source(policy);
    release_shape(policy, source);  // the column exists; one hierarchy per generalized column
    std::string what = "condition of the rule on column " + quote_value(rule.column);
    BoundCondition bound = bind_condition(source, rule.condition, what);
    pg_call([&] { table_close(source, AccessShareLock); });

    AsCatalogOwner owner;
    Spi spi;
    insert_rule(spi, name, rule, bound);
    spi.finish();
    PG_RETURN_INT32(rule.number);
}

// refresh_policy(policy): its owner binds every condition again from its text
// (after a restore, or a change of the source's columns) and approves the
// current version of every hierarchy its rules use. Returns the rule count.
PRIVRISK_FUNCTION(privrisk_refresh_policy) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    Policy policy = load_owned_policy(name);
    for (PolicyRule& r : policy.rules)  // approve the hierarchies as they are now
        if (r.op == DisclosureOp::Gen) cached_hierarchy(r.hierarchy, &r.hierarchy_version);
    Relation source = open_policy_source(policy);
    release_shape(policy, source);  // columns exist; levels fit the hierarchies as they are now
    std::vector<BoundCondition> bound;
    for (const PolicyRule& r : policy.rules)
        bound.push_back(bind_condition(source, r.condition, "condition of rule " + std::to_string(r.number)));
    pg_call([&] { table_close(source, AccessShareLock); });
    AsCatalogOwner owner;
    Spi spi;
    for (std::size_t i = 0; i < policy.rules.size(); ++i)
        spi.run("UPDATE privrisk.policy_rule SET condition_tree = $3, condition_columns = $4::pg_catalog.name[], "
                "hierarchy_version = $5 WHERE policy OPERATOR(pg_catalog.=) $1 AND rule OPERATOR(pg_catalog.=) $2",
                {text_arg(name), int4_arg(policy.rules[i].number), text_arg(bound[i].tree),
                 text_array_arg(bound[i].columns),
                 SpiArg{INT8OID, Int64GetDatum(policy.rules[i].hierarchy_version),
                        policy.rules[i].op != DisclosureOp::Gen}},
                false);
    spi.finish();
    PG_RETURN_INT32(static_cast<int>(policy.rules.size()));
}

PRIVRISK_FUNCTION(privrisk_drop_policy) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    load_owned_policy(name);  // a policy whose source is gone is a superuser's to drop
    AsCatalogOwner owner;
    Spi spi;
    spi.run("DELETE FROM privrisk.policy WHERE name OPERATOR(pg_catalog.=) $1", {text_arg(name)}, false);
    spi.finish();
    PG_RETURN_VOID();
}

PRIVRISK_FUNCTION(privrisk_create_release_view) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    std::string view_name(text_arg_view(fcinfo, 1, "view name"));
    Policy policy = load_owned_policy(name);
    std::vector<ReleasedColumn> shape = release_shape(policy);
    // What the view publishes as it is that its labels say should not be: a sensitive column no
    // rule touches; on a labelled table, unlabelled columns the policy publishes.
    std::vector<TableColumn> columns = table_columns(policy.source);  // the caller owns it
    auto ruled = [&](const std::string& column) {
        return std::any_of(policy.rules.begin(), policy.rules.end(), [&](const PolicyRule& r) { return r.column == column; });
    };
    const bool labelled = std::any_of(columns.begin(), columns.end(), [](const TableColumn& c) { return c.label; });
    for (const TableColumn& c : columns) {
        if (!c.label || c.label->role != ColumnRole::Sensitive || ruled(c.name)) continue;
        std::string message = "create_release_view: column " + quote_value(c.name) + " is labelled sensitive and policy " +
                              quote_value(name) + " publishes it as it is (no rule hides or generalizes it)";
        pg_call([&] { ereport(WARNING, (errmsg("%s", message.c_str()))); });
    }
    if (labelled && !policy.unlabelled_hidden) {
        std::string unlabelled;
        for (const TableColumn& c : columns)
            if (!c.label && !ruled(c.name)) unlabelled += (unlabelled.empty() ? "" : ", ") + quote_value(c.name);
        if (!unlabelled.empty()) {
            std::string message = "create_release_view: columns without a label are published as they are: " +
                                  unlabelled + "; label them, or create the policy with unlabelled => 'hide'";
            pg_call([&] { ereport(WARNING, (errmsg("%s", message.c_str()))); });
        }
    }
    // The view's name as the caller wrote it, its schema resolved on the
    // caller's path (the statement itself runs under the pinned one), every
    // part quoted again; the policy goes in as a literal. Nothing is spliced.
    const char* view_text = view_name.c_str();
    RangeVar* target = pg_call([&] { return makeRangeVarFromNameList(stringToQualifiedNameList(view_text)); });
    if (target->relpersistence == RELPERSISTENCE_TEMP || (target->schemaname && pg_call([&] {
                                                              return isAnyTempNamespace(
                                                                  get_namespace_oid(target->schemaname, true));
                                                          })))
        fail(ErrorKind::InvalidParameter, "create_release_view: a release view must not be temporary");
    Oid schema = pg_call([&] { return RangeVarGetCreationNamespace(target); });
    if (pg_call([&] { return isAnyTempNamespace(schema); }))
        fail(ErrorKind::InvalidParameter, "create_release_view: a release view must not be temporary (" +
                                              quote_value(view_name) + " would be created in pg_temp)");
    // Over shards: the shards' release views, read through postgres_fdw (docs/scale-out.md).
    const std::vector<ShardTable> shards = shard_tables(policy.source, name);
    if (!shards.empty()) {
        create_shard_release_view(policy, shape, shards, schema, target->relname);
    } else {
        const std::string sql = "CREATE VIEW " + sql_identifier(pg_call([&] { return get_namespace_name(schema); })) +
                                "." + sql_identifier(target->relname) + " AS SELECT * FROM privrisk.release(" +
                                sql_literal(name) + ") AS r(" + column_definitions(shape) + ")";
        Spi spi;
        spi.run(sql.c_str(), {}, false);  // as the caller: the view is theirs to grant
        spi.finish();
    }
    const char* relname = target->relname;
    Oid view = pg_call([&] { return get_relname_relid(relname, schema); });
    {
        AsCatalogOwner owner;
        Spi catalog;
        catalog.run("INSERT INTO privrisk.release_view(view, policy) VALUES ($1, $2)",
                    {oid_arg(REGCLASSOID, view), text_arg(name)}, false);
        catalog.finish();
    }
    PG_RETURN_OID(view);
}
