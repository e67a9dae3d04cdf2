#include "common/privrisk_function.hpp"

extern "C" {
#include "nodes/value.h"
#include "parser/parse_func.h"
}

namespace privrisk::pg {

Oid privrisk_function(const char* name, int nargs, const Oid* argtypes) {
    List* qualified = list_make2(makeString(pstrdup("privrisk")), makeString(pstrdup(name)));
    return LookupFuncName(qualified, nargs, argtypes, true);
}

}  // namespace privrisk::pg
