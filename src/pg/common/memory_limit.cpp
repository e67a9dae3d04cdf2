#include "common/memory_limit.hpp"

#include <string>

#include "common/error.hpp"
#include "common/guard.hpp"

namespace privrisk::pg {

int memory_limit_kb = 1024 * 1024;

void register_memory_limit() {
    DefineCustomIntVariable("privrisk.memory_limit",
                            "Memory one privrisk aggregate state or search may hold (distinct values, roll-up caches) "
                            "before it stops with an error.",
                            nullptr, &memory_limit_kb, 1024 * 1024, 1024, INT_MAX, PGC_USERSET, GUC_UNIT_KB, nullptr,
                            nullptr, nullptr);
}

void check_memory_limit(std::size_t bytes, const char* what, const char* hint) {
    if (bytes <= static_cast<std::size_t>(memory_limit_kb) * 1024) return;
    std::string message = std::string(what) + " need more than privrisk.memory_limit (" +
                          std::to_string(memory_limit_kb) + " kB): " + std::to_string(bytes / 1024) + " kB so far";
    pg_call([&] {
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("%s", message.c_str()), errhint("%s", hint)));
    });
}

}  // namespace privrisk::pg
