#include "classes/class_memory.hpp"

#include <algorithm>

#include "common/admin_setting.hpp"
#include "common/memory_limit.hpp"

extern "C" {
#include "utils/guc.h"
}

namespace privrisk::pg {

int audit_memory_limit_kb = 512 * 1024;

void register_audit_settings() {
    define_admin_int_setting("privrisk.audit_memory_limit",
                             "Memory audit() may use for its own class aggregation before it falls back to a "
                             "spilling GROUP BY (at most privrisk.memory_limit).",
                             "A bound the administrator sets: only superusers and roles granted SET on it "
                             "(GRANT SET ON PARAMETER) may change it.",
                             &audit_memory_limit_kb, 512 * 1024, 1024, INT_MAX, GUC_UNIT_KB);
}

Size audit_memory_bytes() { return static_cast<Size>(std::min(audit_memory_limit_kb, memory_limit_kb)) * 1024; }

const char* audit_memory_setting() {
    return audit_memory_limit_kb <= memory_limit_kb ? "privrisk.audit_memory_limit" : "privrisk.memory_limit";
}

MemoryBound audit_memory_bound(const char* operation) {
    MemoryBound bound;
    bound.bytes = audit_memory_bytes();
    bound.setting = audit_memory_setting();
    bound.operation = operation;
    return bound;
}

}  // namespace privrisk::pg
