#include "common/catalog_owner.hpp"

#include "common/guard.hpp"

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

}  // namespace privrisk::pg
