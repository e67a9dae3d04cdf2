// Writing and reading the byte forms of tallies (native byte order: they travel
// between processes and servers of one architecture). Every read is checked
// against the end, so a truncated or hand-made form is an error, never a read
// past the buffer.
#pragma once

#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "common/error.hpp"

namespace privrisk {

template <typename T, typename String>  // a std::string or a std::pmr::string
void put_bytes(String& out, T v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

// `bytes` at `to`; returns their end. memcpy's pointers must not be null even
// for no bytes, and an empty string_view's may be: a ⊥ key's, or the empty text
// of a column whose values are all '' (an empty vector's data()).
inline char* put_raw(char* to, std::string_view bytes) {
    if (!bytes.empty()) std::memcpy(to, bytes.data(), bytes.size());
    return to + bytes.size();
}

// Unsigned LEB128, 7 bits a byte, low bits first: the counts and value ids of
// class runs are mostly below 128, so they take a byte each, not 12.
inline char* put_varint(char* to, uint64_t v) {
    for (; v >= 0x80; v >>= 7) *to++ = static_cast<char>(v | 0x80);
    *to++ = static_cast<char>(v);
    return to;
}
constexpr std::size_t kMaxVarint = 10;  // bytes of the largest uint64
// The bytes put_varint writes for v.
inline std::size_t varint_size(uint64_t v) {
    std::size_t n = 1;
    for (; v >= 0x80; v >>= 7) ++n;
    return n;
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
    uint64_t varint() {
        uint64_t v = 0;
        for (unsigned shift = 0; shift < 64; shift += 7) {
            need(1);
            const auto b = static_cast<uint8_t>(in[0]);
            in.remove_prefix(1);
            if (shift == 63 && b > 1) break;  // past 64 bits
            v |= uint64_t(b & 0x7f) << shift;
            if (!(b & 0x80)) return v;
        }
        fail(ErrorKind::InvalidParameter, std::string(what) + "'s byte form has a number past 64 bits");
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
