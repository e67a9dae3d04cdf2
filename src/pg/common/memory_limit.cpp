#include "common/memory_limit.hpp"

#include "common/admin_setting.hpp"
#include "common/guard.hpp"

namespace privrisk::pg {

int memory_limit_kb = 1024 * 1024;

void register_memory_limit() {
    define_admin_int_setting("privrisk.memory_limit",
                             "Memory one privrisk aggregate state, search, identification or release cache may hold "
                             "before it stops with an error (the release cache stops growing instead).",
                             "A bound the administrator sets: only superusers and roles granted SET on it "
                             "(GRANT SET ON PARAMETER) may change it.",
                             &memory_limit_kb, 1024 * 1024, 1024, INT_MAX, GUC_UNIT_KB);
}

MemoryBound memory_bound() {
    return MemoryBound{static_cast<std::size_t>(memory_limit_kb) * 1024, "privrisk.memory_limit"};
}

}  // namespace privrisk::pg
