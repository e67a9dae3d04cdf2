// A column label: the role a column plays in a release, declared once with
// SECURITY LABEL FOR privrisk ON COLUMN t.c IS '…' (docs/labels.md) and read by
// every function whose quasi-identifiers, hierarchies or sensitive column are
// omitted. The text forms are fixed, so a label reads the same in pg_dump's
// output, in pg_seclabels and in an error message.
#pragma once

#include <string>
#include <string_view>

namespace privrisk {

enum class ColumnRole { Identifier, QuasiIdentifier, Sensitive, Insensitive };

struct ColumnLabel {
    ColumnRole role;
    std::string hierarchy;  // quasi_identifier only; empty: released as it is
                            // unless a call names one

    // Parses one of the forms below; an error (InvalidParameter) lists them.
    static ColumnLabel parse(std::string_view text);
    std::string text() const;
};

// The allowed forms, for messages and docs. The text is taken exactly: no space
// around a role or inside the parentheses around the hierarchy's name (a name
// may hold spaces inside, as in 'quasi_identifier(zip 3-digit)').
constexpr const char* kColumnLabelForms =
    "'identifier', 'quasi_identifier', 'quasi_identifier(<hierarchy>)', "
    "'sensitive' or 'insensitive'";

const char* role_name(ColumnRole role);

}  // namespace privrisk
