// Shared by the unit tests.
#pragma once

#include <functional>
#include <string>

#include "common/error.hpp"

namespace privrisk_test {

// The message of the privrisk::Error that f throws, or "no error".
inline std::string error_of(const std::function<void()>& f) {
    try {
        f();
    } catch (const privrisk::Error& e) {
        return e.what();
    }
    return "no error";
}

}  // namespace privrisk_test
