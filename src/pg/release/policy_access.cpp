// Who may do what with a policy: its source checked, the owner required for
// changes, and who may read its release (docs/security.md).
#include "release/policy_access.hpp"

#include "common/error.hpp"
#include "common/guard.hpp"

extern "C" {
#include "catalog/pg_inherits.h"
}

namespace privrisk::pg {

namespace {

std::string relation_name(Oid relid) {
    char* name = pg_call([&] { return get_rel_name(relid); });
    return name ? std::string(name) : "(dropped relation " + std::to_string(relid) + ")";
}

}  // namespace

Relation open_policy_source(const Policy& policy) {
    Oid source = policy.source;
    bool exists = pg_call([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(source)); });
    if (!exists)
        fail(ErrorKind::UndefinedObject, "the source of policy " + quote_value(policy.name) + " (relation " +
                                             std::to_string(source) + ") no longer exists; drop the policy");
    Relation rel = pg_call([&] { return table_open(source, AccessShareLock); });
    char kind = rel->rd_rel->relkind;
    bool rls = rel->rd_rel->relrowsecurity;
    if (kind != RELKIND_RELATION && kind != RELKIND_MATVIEW && kind != RELKIND_PARTITIONED_TABLE)
        fail(ErrorKind::InvalidParameter, "the source of policy " + quote_value(policy.name) + ", " +
                                              relation_name(source) + ", is not a table or materialized view");
    if (rls)
        fail(ErrorKind::InvalidParameter, "the source of policy " + quote_value(policy.name) + ", " +
                                              relation_name(source) +
                                              ", has row-level security; a release would bypass it");
    return rel;
}

void require_source_owner(Oid source, const char* action) {
    bool owner = pg_call([&] { return pg_class_ownercheck(source, GetUserId()); });
    if (!owner) fail(ErrorKind::PermissionDenied, "must be owner of table " + relation_name(source) + " to " + action);
}

bool reads_source(Oid source) {
    return pg_call([&] {
        Oid user = GetUserId();
        return pg_class_ownercheck(source, user) || pg_class_aclcheck(source, user, ACL_SELECT) == ACLCHECK_OK;
    });
}

void check_bound_columns(const Policy& policy, Relation source) {
    TupleDesc desc = RelationGetDescr(source);
    const char* key = policy.name.c_str();
    auto refresh = [&] {
        return "; its owner reviews the policy's rules and labels, then approves the columns as they are with "
               "privrisk.refresh_policy(" +
               std::string(pg_call([&] { return quote_literal_cstr(key); })) + ")";
    };
    for (const BoundColumn& c : policy.columns) {
        if (!c.guarded) continue;
        const std::string column = "column " + quote_value(c.name) + " (number " + std::to_string(c.attno) +
                                   ") of the source of policy " + quote_value(policy.name);
        if (c.attno < 1 || c.attno > desc->natts || TupleDescAttr(desc, c.attno - 1)->attisdropped)
            fail(ErrorKind::InvalidParameter, column + " was dropped since the policy was approved" + refresh());
        Form_pg_attribute a = TupleDescAttr(desc, c.attno - 1);
        if (c.name != NameStr(a->attname))
            fail(ErrorKind::InvalidParameter, column + " was renamed to " + quote_value(NameStr(a->attname)) +
                                                  " since the policy was approved" + refresh());
        if (c.type != a->atttypid) {
            Oid was = c.type, now = a->atttypid;
            std::string was_name = pg_call([&] { return format_type_extended(was, -1, FORMAT_TYPE_ALLOW_INVALID); });
            std::string now_name = pg_call([&] { return format_type_be(now); });
            fail(ErrorKind::InvalidParameter, column + " changed type from " + was_name + " to " + now_name +
                                                  " since the policy was approved" + refresh());
        }
    }
}

}  // namespace privrisk::pg
