// Shared by the fuzz targets (scripts/fuzz): a privrisk::Error is how the core
// refuses bad input, so it is expected; anything else escaping (another
// exception, a crash, a sanitizer report) is a finding.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "common/error.hpp"

template <typename F>
void refused_or_read(F&& f) {
    try {
        f();
    } catch (const privrisk::Error&) {
    }
}

inline std::string_view bytes_of(const uint8_t* data, std::size_t size) {
    return std::string_view(reinterpret_cast<const char*>(data), size);
}

// A property the input must keep, checked whatever the build (not assert: NDEBUG may be set).
#define FUZZ_REQUIRE(cond)                                                \
    do {                                                                  \
        if (!(cond)) {                                                    \
            __builtin_trap();                                             \
        }                                                                 \
    } while (0)
