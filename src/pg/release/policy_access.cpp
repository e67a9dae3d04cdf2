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
        fail(ErrorKind::UndefinedObject,
             "the source of policy " + quote_value(policy.name) + " (relation " + std::to_string(source) +
                 ") no longer exists; drop the policy");
    Relation rel = pg_call([&] { return table_open(source, AccessShareLock); });
    char kind = rel->rd_rel->relkind;
    bool rls = rel->rd_rel->relrowsecurity;
    if (kind != RELKIND_RELATION && kind != RELKIND_MATVIEW && kind != RELKIND_PARTITIONED_TABLE)
        fail(ErrorKind::InvalidParameter, "the source of policy " + quote_value(policy.name) + ", " +
                                              relation_name(source) + ", is not a table or materialized view");
    if (rls)
        fail(ErrorKind::InvalidParameter,
             "the source of policy " + quote_value(policy.name) + ", " + relation_name(source) +
                 ", has row-level security; a release would bypass it");
    return rel;
}

void require_source_owner(Oid source, const char* action) {
    bool owner = pg_call([&] { return pg_class_ownercheck(source, GetUserId()); });
    if (!owner)
        fail(ErrorKind::PermissionDenied, "must be owner of table " + relation_name(source) + " to " + action);
}

bool reads_source(Oid source) {
    return pg_call([&] {
        Oid user = GetUserId();
        return pg_class_ownercheck(source, user) || pg_class_aclcheck(source, user, ACL_SELECT) == ACLCHECK_OK;
    });
}

bool may_read_release(const Policy& policy) {
    Oid user = GetUserId();
    if (pg_call([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(policy.source)); }) &&
        reads_source(policy.source))
        return true;
    for (Oid view : release_views_of(policy.name))
        if (pg_call([&] {
                return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(view)) &&
                       pg_class_aclcheck(view, user, ACL_SELECT) == ACLCHECK_OK;
            }))
            return true;
    return false;
}

AttrNumber policy_column_attno(Relation source, const std::string& column, const std::string& policy) {
    const char* name = column.c_str();
    AttrNumber attno = pg_call([&] { return get_attnum(RelationGetRelid(source), name); });
    if (attno == InvalidAttrNumber || attno < 0)
        fail(ErrorKind::UndefinedObject, "column " + quote_value(column) + " of " +
                                             relation_name(RelationGetRelid(source)) + " (the source of policy " +
                                             quote_value(policy) + ") does not exist");
    return attno;
}

}  // namespace privrisk::pg
