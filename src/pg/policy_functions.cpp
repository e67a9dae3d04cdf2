// create_policy, add_rule, drop_policy, create_release_view (SPEC §4.2).
// Each checks that the caller owns the source, validates everything, and only
// then writes the catalog (as its owner), in one statement per change.
#include <algorithm>

#include "args.hpp"
#include "error.hpp"
#include "policy_catalog.hpp"
#include "release_shape.hpp"
#include "spi.hpp"

using namespace privrisk;
using namespace privrisk::pg;

PRIVRISK_FUNCTION(privrisk_create_policy) {
    std::string name(text_arg_view(fcinfo, 0, "policy name"));
    check_object_name("policy", name);
    if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "create_policy: source must not be NULL");
    Policy policy{name, PG_GETARG_OID(1), {}};
    Relation source = open_policy_source(policy);
    pg_call([&] { table_close(source, AccessShareLock); });
    require_source_owner(policy.source, "create a policy on it");
    AsCatalogOwner owner;
    Spi spi;
    if (spi.run("SELECT 1 FROM privrisk.policy WHERE name OPERATOR(pg_catalog.=) $1", {text_arg(name)}, true) > 0)
        fail(ErrorKind::DuplicateObject, "policy " + quote_value(name) + " already exists");
    const char* user = pg_call([] { return GetUserNameFromId(GetOuterUserId(), false); });
    spi.run("INSERT INTO privrisk.policy(name, source, created_by) VALUES ($1, $2, $3)",
            {text_arg(name), oid_arg(REGCLASSOID, policy.source), text_arg(user)}, false);
    spi.finish();
    PG_RETURN_VOID();
}

PRIVRISK_FUNCTION(privrisk_add_rule) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    Policy policy = load_policy(name, true);
    require_source_owner(policy.source, "add a rule to its policy");
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
        gen_rule_height(rule, "add_rule");
    }
    policy.rules.push_back(rule);
    Relation source = open_policy_source(policy);
    release_shape(policy, source);  // the column exists; one hierarchy per generalized column
    std::string what = "condition of the rule on column " + quote_value(rule.column);
    parse_condition(source, rule.condition, what);
    pg_call([&] { table_close(source, AccessShareLock); });

    AsCatalogOwner owner;
    Spi spi;
    spi.run("INSERT INTO privrisk.policy_rule(policy, rule, column_name, operator, condition, hierarchy, level) "
            "VALUES ($1, $2, $3::name, $4, $5, $6, $7)",
            {text_arg(name), int4_arg(rule.number), text_arg(rule.column), text_arg(op), text_arg(rule.condition),
             rule.op == DisclosureOp::Gen ? text_arg(rule.hierarchy) : SpiArg{TEXTOID, 0, true},
             rule.op == DisclosureOp::Gen ? int4_arg(rule.level) : SpiArg{INT4OID, 0, true}},
            false);
    spi.finish();
    PG_RETURN_INT32(rule.number);
}

PRIVRISK_FUNCTION(privrisk_drop_policy) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    Policy policy = load_policy(name, true);
    Oid source = policy.source;
    if (pg_call([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(source)); }))
        require_source_owner(source, "drop its policy");
    else if (!superuser())
        fail(ErrorKind::PermissionDenied, "the source of policy " + quote_value(name) +
                                              " no longer exists; only a superuser may drop the policy");
    AsCatalogOwner owner;
    Spi spi;
    spi.run("DELETE FROM privrisk.policy WHERE name OPERATOR(pg_catalog.=) $1", {text_arg(name)}, false);
    spi.finish();
    PG_RETURN_VOID();
}

PRIVRISK_FUNCTION(privrisk_create_release_view) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    std::string view_name(text_arg_view(fcinfo, 1, "view name"));
    Policy policy = load_policy(name, true);
    require_source_owner(policy.source, "publish its release");
    std::vector<ReleasedColumn> shape = release_shape(policy);
    // The view's name as the caller wrote it (possibly schema-qualified), every
    // part quoted again; the policy goes in as a literal. Nothing is spliced.
    const char* view_text = view_name.c_str();
    RangeVar* target = pg_call([&] { return makeRangeVarFromNameList(stringToQualifiedNameList(view_text)); });
    std::string sql = "CREATE VIEW ";
    if (target->schemaname) sql += std::string(pg_call([&] { return quote_identifier(target->schemaname); })) + ".";
    sql += pg_call([&] { return quote_identifier(target->relname); });
    sql += " AS SELECT * FROM privrisk.release(";
    const char* policy_text = name.c_str();
    sql += pg_call([&] { return quote_literal_cstr(policy_text); });
    sql += ") AS r(";
    for (std::size_t i = 0; i < shape.size(); ++i) {
        const ReleasedColumn& c = shape[i];
        const char* column = c.name.c_str();
        if (i) sql += ", ";
        sql += pg_call([&] { return quote_identifier(column); });
        sql += " ";
        sql += pg_call([&] {
            return format_type_extended(c.type, c.typmod, FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY);
        });
    }
    sql += ")";
    Spi spi;
    spi.run(sql.c_str(), {}, false);  // as the caller: the view is theirs to grant
    spi.finish();
    Oid view = pg_call([&] { return RangeVarGetRelid(target, NoLock, false); });
    {
        AsCatalogOwner owner;
        Spi catalog;
        catalog.run("INSERT INTO privrisk.release_view(view, policy) VALUES ($1, $2)",
                    {oid_arg(REGCLASSOID, view), text_arg(name)}, false);
        catalog.finish();
    }
    PG_RETURN_OID(view);
}
