// Settings only the administrator sets (docs/memory.md): resource bounds that
// superusers and roles granted SET on them may change, and no other role, from
// any entry point and whatever the preload mode.
//
// PGC_SUSET does it alone once the module is loaded. Before that (loaded on
// first use, or by session_preload_libraries) the setting is a placeholder that
// any role may set, and PostgreSQL checks those values only when the module
// defines the setting: it then discards a value set by a role not allowed to
// set it, with a WARNING, and falls back to the boot default. A connection's
// options (PGOPTIONS) are the one such value that replaces the administrator's:
// they outrank the configuration files and ALTER DATABASE|ROLE ... SET, so
// those values were never kept. define_admin_int_setting then puts the
// administrator's value back, read from where PostgreSQL read it.
#pragma once

namespace privrisk::pg {

// DefineCustomIntVariable(name, ..., PGC_SUSET, flags) for a module's _PG_init,
// and when a connection option of a role not allowed to set it was discarded,
// the value of the administrator's highest-ranking source: ALTER ROLE ... IN
// DATABASE ... SET, ALTER ROLE ... SET, ALTER DATABASE ... SET, ALTER ROLE ALL
// SET, postgresql.auto.conf (ALTER SYSTEM), postgresql.conf and its includes
// (none: the boot value). Not the postmaster's command line (-c), which is lost.
void define_admin_int_setting(const char* name, const char* short_desc, const char* long_desc, int* variable,
                              int boot_value, int min_value, int max_value, int flags);

}  // namespace privrisk::pg
