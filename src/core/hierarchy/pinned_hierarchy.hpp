// A pinned hierarchy: a hierarchy's name, the digest of its definition, and
// optionally the server it is sent to (for messages). A generalization through
// a pinned hierarchy depends only on its arguments, so
// PostgreSQL may run it on another server (postgres_fdw ships it) or keep it
// in a partition key: where the named hierarchy has another digest it fails.
// Text form: name@digest[@server], '@' and '\' escaped with '\' in the names.
#pragma once

#include <string>
#include <string_view>

namespace privrisk {

struct PinnedHierarchy {
    std::string name;
    std::string digest;  // 16 lowercase hex digits
    std::string server;  // empty: not sent anywhere

    // Parses and checks the text form; an error names what is wrong, calling
    // the text `what` (a pinned policy has the same form: docs/scale-out.md).
    static PinnedHierarchy parse(std::string_view text, std::string_view what = "pinned hierarchy");
    std::string text() const;
};

constexpr std::size_t kPinnedHierarchyDigestLength = 16;
constexpr std::size_t kMaxHierarchyNameBytes = 200;  // as the catalog's CHECK
constexpr std::size_t kMaxServerNameBytes = 63;      // NAMEDATALEN - 1

}  // namespace privrisk
