#include "release/release_shape.hpp"
#include "common/sql_text.hpp"

#include "common/error.hpp"
#include "release/policy_access.hpp"
#include "common/guard.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "release/pseudonym_key.hpp"

namespace privrisk::pg {

int gen_rule_height(const PolicyRule& rule, const std::string& who, const std::string& policy) {
    int64 version = 0;
    int height = cached_hierarchy(rule.hierarchy, &version).height();
    if (version != rule.hierarchy_version) {  // 0: a catalog without versions (not updated yet)
        const char* name = policy.c_str();
        fail(ErrorKind::InvalidParameter,
             who + ": hierarchy " + quote_value(rule.hierarchy) + " changed since the rule was approved (version " +
                 std::to_string(rule.hierarchy_version) + ", now " + std::to_string(version) +
                 "); the policy's owner approves the new version with privrisk.refresh_policy(" +
                 std::string(pg_call([&] { return quote_literal_cstr(name); })) + ")");
    }
    if (rule.level < 1 || rule.level > height)
        fail(ErrorKind::InvalidParameter, who + ": level " + std::to_string(rule.level) + " is outside 1.." +
                                              std::to_string(height) + " of hierarchy " + quote_value(rule.hierarchy));
    return height;
}

std::vector<ReleasedColumn> release_shape(const Policy& policy, Relation source) {
    check_bound_columns(policy, source);
    TupleDesc desc = RelationGetDescr(source);
    std::vector<ReleasedColumn> columns;
    std::vector<int> position(desc->natts + 1, -1);  // attno -> index in columns
    for (int i = 0; i < desc->natts; ++i) {
        Form_pg_attribute a = TupleDescAttr(desc, i);
        if (a->attisdropped) continue;
        position[a->attnum] = static_cast<int>(columns.size());
        columns.push_back({NameStr(a->attname), a->attnum, a->atttypid, a->atttypmod, a->atttypid, "", 1, {}, false});
    }
    for (std::size_t r = 0; r < policy.rules.size(); ++r) {
        const PolicyRule& rule = policy.rules[r];
        std::string where = "rule " + std::to_string(rule.number) + " of policy " + quote_value(policy.name);
        // Its column by number: a column renamed since is caught above, and a new
        // column that took its name is not the one the rule protects.
        AttrNumber attno = rule.attno;
        if (attno < 1 || attno > desc->natts || position[attno] < 0)
            fail(ErrorKind::InvalidParameter, where + ": its column " + quote_value(rule.column) +
                                                  " is no longer a column of the source; the policy's owner drops "
                                                  "the policy and creates it again");
        ReleasedColumn& c = columns[position[attno]];
        c.rules.push_back(static_cast<int>(r));
        if (rule.op == DisclosureOp::Hide) continue;
        if (rule.op == DisclosureOp::Pseudonymize ? !c.hierarchy.empty() : c.pseudonymized)
            fail(ErrorKind::InvalidParameter, where + ": column " + quote_value(c.name) +
                                                  " would be both generalized and pseudonymized; a column is "
                                                  "generalized (gen) or pseudonymized, not both");
        c.type = TEXTOID;
        c.typmod = -1;
        if (rule.op == DisclosureOp::Pseudonymize) {
            const Oid type = c.source_type;
            if (!pseudonymizable_type(type))
                fail(ErrorKind::InvalidParameter,
                     where + ": column " + quote_value(c.name) + " is " +
                         std::string(pg_call([&] { return format_type_be(type); })) +
                         ", whose text depends on session settings, and so would its pseudonyms; pseudonymize takes "
                         "text, varchar, char, name, smallint, integer, bigint, numeric, uuid, boolean or date "
                         "columns: pseudonymize a generated text column that formats the value instead");
            c.pseudonymized = true;
            c.height = 2;  // 1: the pseudonym, 2: ⊥
            continue;
        }
        if (!c.hierarchy.empty() && c.hierarchy != rule.hierarchy)
            fail(ErrorKind::InvalidParameter, where + " generalizes column " + quote_value(c.name) +
                                                  " with hierarchy " + quote_value(rule.hierarchy) +
                                                  ", but another rule uses " + quote_value(c.hierarchy) +
                                                  "; a column has one hierarchy");
        c.hierarchy = rule.hierarchy;
        c.height = gen_rule_height(rule, where, policy.name);
    }
    return columns;
}

std::string column_definitions(const std::vector<ReleasedColumn>& shape) {
    std::string sql;
    for (std::size_t i = 0; i < shape.size(); ++i)
        sql += (i ? ", " : "") + sql_identifier(shape[i].name) + " " + sql_type(shape[i].type, shape[i].typmod);
    return sql;
}

std::vector<ReleasedColumn> release_shape(const Policy& policy) {
    Relation source = open_policy_source(policy);
    std::vector<ReleasedColumn> shape = release_shape(policy, source);
    pg_call([&] { table_close(source, AccessShareLock); });
    return shape;
}

}  // namespace privrisk::pg
