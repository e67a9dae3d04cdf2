// Runs in _PG_init, in PostgreSQL's C style: no C++ object lives across a call
// that may raise an ERROR (docs/architecture.md).
#include "common/admin_setting.hpp"

#include "common/postgres.hpp"

extern "C" {
#include "access/genam.h"
#include "access/xact.h"
#include "catalog/indexing.h"
#include "catalog/pg_authid.h"
#include "catalog/pg_db_role_setting.h"
#include "utils/fmgroids.h"
#include "utils/guc.h"
#include "utils/guc_tables.h"
}

namespace privrisk::pg {

namespace {

// The placeholder of `name`, made before the module defined it, or nullptr.
config_generic* placeholder(const char* name) {
    config_generic** vars = get_guc_variables();
    for (int i = 0, n = GetNumConfigOptions(); i < n; ++i)
        if ((vars[i]->flags & GUC_CUSTOM_PLACEHOLDER) && pg_strcasecmp(vars[i]->name, name) == 0) return vars[i];
    return nullptr;
}

// What PostgreSQL's check of a SUSET setting allows a role.
bool may_set(const char* name, Oid role) {
    return superuser_arg(role) || pg_parameter_aclcheck(name, role, ACL_SET) == ACLCHECK_OK;
}

// The value ALTER ROLE|DATABASE ... SET gave `name` for (database, role) (InvalidOid: any), or nullptr.
char* stored_setting(const char* name, Oid database, Oid role) {
    char* found = nullptr;
    Relation rel = table_open(DbRoleSettingRelationId, AccessShareLock);
    ScanKeyData keys[2];
    ScanKeyInit(&keys[0], Anum_pg_db_role_setting_setdatabase, BTEqualStrategyNumber, F_OIDEQ,
                ObjectIdGetDatum(database));
    ScanKeyInit(&keys[1], Anum_pg_db_role_setting_setrole, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(role));
    SysScanDesc scan = systable_beginscan(rel, DbRoleSettingDatidRolidIndexId, true, nullptr, 2, keys);
    if (HeapTuple tuple = systable_getnext(scan); HeapTupleIsValid(tuple)) {
        bool isnull;
        Datum config = heap_getattr(tuple, Anum_pg_db_role_setting_setconfig, RelationGetDescr(rel), &isnull);
        if (!isnull) {
            Datum* items;
            int n;
            deconstruct_array(DatumGetArrayTypeP(config), TEXTOID, -1, false, TYPALIGN_INT, &items, nullptr, &n);
            for (int i = 0; i < n; ++i) {  // as ProcessGUCArray reads it: the last one counts
                char *item_name, *item_value;
                ParseLongOption(TextDatumGetCString(items[i]), &item_name, &item_value);
                if (item_value && pg_strcasecmp(item_name, name) == 0) found = item_value;
            }
        }
    }
    systable_endscan(scan);
    table_close(rel, AccessShareLock);
    return found;
}

// The value the configuration files give `name` (postgresql.conf with its includes, then
// postgresql.auto.conf), as they read now, or nullptr. *ok: whether they could be read.
char* file_setting(const char* name, bool* ok) {
    ConfigVariable *head = nullptr, *tail = nullptr;
    *ok = ParseConfigFile(ConfigFileName, true, nullptr, 0, 0, LOG, &head, &tail) &&
          (!DataDir || ParseConfigFile(PG_AUTOCONF_FILENAME, false, nullptr, 0, 0, LOG, &head, &tail));
    char* found = nullptr;
    for (ConfigVariable* v = head; v; v = v->next)
        if (v->name && v->value && pg_strcasecmp(v->name, name) == 0) found = pstrdup(v->value);
    FreeConfigVariables(head);
    return *ok ? found : nullptr;
}

// Sets `name` from the administrator's highest-ranking source, as PostgreSQL would
// have without the discarded connection option (a source below the session's,
// so a SET the session is allowed to keep stays in force over it).
void restore_administrator_value(const char* name) {
    struct Source {
        Oid database, role;
        GucSource source;
    };
    const Source stored[] = {{MyDatabaseId, GetSessionUserId(), PGC_S_DATABASE_USER},
                             {InvalidOid, GetSessionUserId(), PGC_S_USER},
                             {MyDatabaseId, InvalidOid, PGC_S_DATABASE},
                             {InvalidOid, InvalidOid, PGC_S_GLOBAL}};
    for (const Source& s : stored) {
        if (char* value = stored_setting(name, s.database, s.role)) {
            set_config_option_ext(name, value, PGC_SUSET, s.source, BOOTSTRAP_SUPERUSERID, GUC_ACTION_SET, true,
                                  WARNING, false);
            return;
        }
    }
    bool ok;
    if (char* value = file_setting(name, &ok)) {
        set_config_option_ext(name, value, PGC_SIGHUP, PGC_S_FILE, BOOTSTRAP_SUPERUSERID, GUC_ACTION_SET, true, WARNING,
                              false);
    } else if (!ok) {
        ereport(WARNING, (errmsg("could not read the configuration files for \"%s\"; its default is in force", name)));
    }
}

}  // namespace

void define_admin_int_setting(const char* name, const char* short_desc, const char* long_desc, int* variable,
                              int boot_value, int min_value, int max_value, int flags) {
    // Only a connection option outranks the administrator's sources without keeping
    // them (a SET keeps them as the reset value). It came from this session's user,
    // in a backend, so the catalogs can be read (in a transaction of our own when
    // session_preload_libraries loads the module); the postmaster never gets here.
    config_generic* held = placeholder(name);
    bool own_transaction = false, restore = false;
    if (held && held->reset_source == PGC_S_CLIENT) {
        own_transaction = !IsTransactionState();
        if (own_transaction) StartTransactionCommand();
        restore = !may_set(name, held->reset_srole);
    }
    DefineCustomIntVariable(name, short_desc, long_desc, variable, boot_value, min_value, max_value, PGC_SUSET, flags,
                            nullptr, nullptr, nullptr);
    if (restore) restore_administrator_value(name);
    if (own_transaction) CommitTransactionCommand();
}

}  // namespace privrisk::pg
