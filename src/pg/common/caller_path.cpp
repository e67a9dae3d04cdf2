// Names a caller writes inside options (a dictionary relation in audit's or
// search's jsonb) are resolved on the caller's search path, as PostgreSQL
// resolves a regclass argument; the pinned path of privrisk's own functions
// would otherwise hide the caller's tables. Only the name's resolution uses
// that path: the relation is then read by OID, with the caller's rights.
#include <cstring>

#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/spi.hpp"

extern "C" {
#include "utils/guc.h"
#include "utils/guc_tables.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// search_path as it was before the innermost run of pinned privrisk functions
// set it: each SET of a function pushes the value it replaced on the GUC stack.
const char* caller_search_path() {
    struct config_generic** vars = get_guc_variables();
    int n = GetNumConfigOptions();
    for (int i = 0; i < n; ++i) {
        if (std::strcmp(vars[i]->name, "search_path") != 0) continue;
        const char* value = *reinterpret_cast<struct config_string*>(vars[i])->variable;
        for (GucStack* s = vars[i]->stack; s && value && std::strcmp(value, kPinnedSearchPath) == 0; s = s->prev)
            value = s->prior.val.stringval;
        return value ? value : "";
    }
    return "";
}

struct Lookup {
    const char* name;
    const char* path;
    Oid relid;
};

void resolve(void* arg) {
    auto* l = static_cast<Lookup*>(arg);
    int level = NewGUCNestLevel();
    set_config_option("search_path", l->path, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
    l->relid = RangeVarGetRelid(makeRangeVarFromNameList(stringToQualifiedNameList(l->name)), NoLock, false);
    AtEOXact_GUC(true, level);
}

}  // namespace

// caller_regclass(name text) -> regclass: `name` resolved as the caller of the
// privrisk function running now would resolve it.
PRIVRISK_FUNCTION(privrisk_caller_regclass) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    std::string name = pg_call([&] { return text_to_cstring(PG_GETARG_TEXT_PP(0)); });
    Lookup l{name.c_str(), nullptr, InvalidOid};
    l.path = pg_call([] { return pstrdup(caller_search_path()); });
    pg_call([&] { resolve(&l); });
    PG_RETURN_OID(l.relid);
}
