// A digest of a definition (a hierarchy's, a policy's): the first 8 bytes of
// the SHA-256 of its fields, in hex. Each field is written with its length
// first, so no two lists of fields write the same bytes. Equal on every server
// that holds the same definition (docs/scale-out.md).
#pragma once

#include <string>
#include <string_view>

namespace privrisk::pg {

constexpr int kDigestBytes = 8;  // 16 hex digits

class Digest {
public:
    void add(std::string_view field) {
        bytes_ += std::to_string(field.size()) + ":";
        bytes_ += field;
    }
    std::string hex() const;  // PostgreSQL's SHA-256; may raise an ERROR (as an exception)

private:
    std::string bytes_;
};

}  // namespace privrisk::pg
