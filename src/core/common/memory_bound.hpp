// A documented memory bound (docs/memory.md): what one computation may hold
// before it stops with an error (ErrorKind::ProgramLimit, 54000) that names
// the setting that raises it, instead of growing until the process is killed.
// The PostgreSQL layer fills it from privrisk.memory_limit; the core only
// compares and words the error.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "common/error.hpp"

namespace privrisk {

struct MemoryBound {
    std::size_t bytes = SIZE_MAX;       // SIZE_MAX: no bound
    std::string setting = "the limit";  // how the caller raises it, for the message
    std::size_t reserved = 0;           // already held by the caller for the whole computation
    std::string operation;              // what the bound is for ("search", "lattice"), for messages

    // What is left of the bound besides the reserved part.
    std::size_t left() const { return bytes > reserved ? bytes - reserved : 0; }
    // Stops when `need` bytes (besides the reserved ones) pass the bound:
    // "<what> need N kB, more than <setting> (M kB); <hint>", N counting the reserved part.
    void check(std::size_t need, const std::string& what, const std::string& hint) const {
        if (need <= left()) return;
        fail(ErrorKind::ProgramLimit, what + " need " + std::to_string((need + reserved) / 1024) + " kB, more than " +
                                          setting + " (" + std::to_string(bytes / 1024) + " kB); " + hint);
    }
};

}  // namespace privrisk
