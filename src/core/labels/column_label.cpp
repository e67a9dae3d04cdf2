#include "labels/column_label.hpp"

#include "common/error.hpp"
#include "common/no_postgres.hpp"
#include "hierarchy/pinned_hierarchy.hpp"

namespace privrisk {

namespace {

[[noreturn]] void refuse(std::string_view text, const std::string& why) {
    fail(ErrorKind::InvalidParameter,
         "privrisk label " + quote_value(std::string(text)) + " " + why + ": a column label is " + kColumnLabelForms);
}

std::string_view trim_spaces(std::string_view s) {
    while (!s.empty() && s.front() == ' ') s.remove_prefix(1);
    while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
    return s;
}

}  // namespace

const char* role_name(ColumnRole role) {
    switch (role) {
        case ColumnRole::Identifier:
            return "identifier";
        case ColumnRole::QuasiIdentifier:
            return "quasi_identifier";
        case ColumnRole::Sensitive:
            return "sensitive";
        case ColumnRole::Insensitive:
            return "insensitive";
    }
    return "?";
}

ColumnLabel ColumnLabel::parse(std::string_view text) {
    for (ColumnRole role :
         {ColumnRole::Identifier, ColumnRole::QuasiIdentifier, ColumnRole::Sensitive, ColumnRole::Insensitive})
        if (text == role_name(role)) return ColumnLabel{role, {}};
    constexpr std::string_view qi = "quasi_identifier(";
    if (text.substr(0, qi.size()) != qi) refuse(text, "is not one");
    if (text.back() != ')') refuse(text, "does not end with ')'");
    std::string_view name = text.substr(qi.size(), text.size() - qi.size() - 1);
    if (trim_spaces(name).empty()) refuse(text, "names no hierarchy");
    // Strict: the name is exactly what stands between the parentheses. A space next to
    // them would become part of the name and fail only when the label is used.
    if (name.front() == ' ' || name.back() == ' ')
        refuse(text, "has a space next to a parenthesis (write 'quasi_identifier(" + std::string(trim_spaces(name)) +
                         ")', without spaces)");
    if (name.size() > kMaxHierarchyNameBytes) refuse(text, "names a hierarchy longer than 200 bytes");
    for (char c : name)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            refuse(text, "names a hierarchy with a control character");
    // A name with ')' or '(' would make the text form ambiguous to read back.
    if (name.find_first_of("()") != std::string_view::npos) refuse(text, "names a hierarchy with '(' or ')'");
    return ColumnLabel{ColumnRole::QuasiIdentifier, std::string(name)};
}

std::string ColumnLabel::text() const {
    std::string out = role_name(role);
    if (role == ColumnRole::QuasiIdentifier && !hierarchy.empty()) out += "(" + hierarchy + ")";
    return out;
}

}  // namespace privrisk
