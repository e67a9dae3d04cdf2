#include "hierarchy/pinned_hierarchy.hpp"

#include <vector>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {
namespace {

std::string escaped(std::string_view s) {
    std::string out;
    for (char c : s) {
        if (c == '@' || c == '\\') out += '\\';
        out += c;
    }
    return out;
}

bool is_digest(std::string_view s) {
    if (s.size() != kPinnedHierarchyDigestLength) return false;
    for (char c : s)
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    return true;
}

}  // namespace

PinnedHierarchy PinnedHierarchy::parse(std::string_view text, std::string_view what) {
    const std::string pinned(what);
    std::vector<std::string> parts(1);
    for (std::size_t i = 0; i < text.size(); ++i) {
        char c = text[i];
        if (c == '\\') {
            if (i + 1 == text.size() || (text[i + 1] != '@' && text[i + 1] != '\\'))
                fail(ErrorKind::BadFormat, pinned + " " + quote_value(text) + ": '\\' must be followed by '@' or '\\'");
            parts.back() += text[++i];
        } else if (c == '@') {
            parts.emplace_back();
        } else {
            parts.back() += c;
        }
    }
    if (parts.size() < 2 || parts.size() > 3)
        fail(ErrorKind::BadFormat,
             pinned + " " + quote_value(text) + " must have the form name@digest or name@digest@server");
    PinnedHierarchy ref{parts[0], parts[1], parts.size() == 3 ? parts[2] : std::string()};
    if (ref.name.empty() || ref.name.size() > kMaxHierarchyNameBytes)
        fail(ErrorKind::BadFormat, pinned + " " + quote_value(text) + ": the name must have 1.." +
                                       std::to_string(kMaxHierarchyNameBytes) + " bytes");
    if (!is_digest(ref.digest))
        fail(ErrorKind::BadFormat, pinned + " " + quote_value(text) + ": the digest must be " +
                                       std::to_string(kPinnedHierarchyDigestLength) + " lowercase hex digits");
    if (parts.size() == 3 && (ref.server.empty() || ref.server.size() > kMaxServerNameBytes))
        fail(ErrorKind::BadFormat, pinned + " " + quote_value(text) + ": the server name must have 1.." +
                                       std::to_string(kMaxServerNameBytes) + " bytes");
    return ref;
}

std::string PinnedHierarchy::text() const {
    std::string out = escaped(name) + "@" + digest;
    if (!server.empty()) out += "@" + escaped(server);
    return out;
}

}  // namespace privrisk
