// Writing and reading the byte forms of tallies (native byte order: they travel
// between processes and servers of one architecture). Every read is checked
// against the end, so a truncated or hand-made form is an error, never a read
// past the buffer.
#pragma once

#include <cstring>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace privrisk {

template <typename T>
void put_bytes(std::string& out, T v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

struct ByteReader {
    std::string_view in;
    const char* what;  // "a tuple tally": names the form in errors

    template <typename T>
    T get() {
        T v;
        need(sizeof v);
        std::memcpy(&v, in.data(), sizeof v);
        in.remove_prefix(sizeof v);
        return v;
    }
    std::string_view bytes(std::size_t n) {
        need(n);
        std::string_view s = in.substr(0, n);
        in.remove_prefix(n);
        return s;
    }
    void need(std::size_t n) const {
        if (in.size() < n) fail(ErrorKind::InvalidParameter, std::string(what) + "'s byte form is truncated");
    }
};

}  // namespace privrisk
