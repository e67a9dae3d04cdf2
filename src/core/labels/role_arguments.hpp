// The quasi-identifiers, hierarchies and sensitive column of a call, each taken
// from the column labels when the call omits it (docs/labels.md). Explicit
// arguments win; the labels fill in only what is missing.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "labels/column_label.hpp"

namespace privrisk {

struct LabelledColumn {
    std::string name;
    ColumnLabel label;
};

using OptionalTexts = std::optional<std::vector<std::optional<std::string>>>;

struct RoleArguments {
    std::vector<std::string> quasi_identifiers;
    OptionalTexts hierarchies;  // nullopt: none given and no label names one
    std::optional<std::string> sensitive;
};

// `labelled`: the source's labelled columns in column order.
// `quasi_identifiers`, `hierarchies`, `sensitive`: the call's arguments,
// nullopt when omitted (SQL NULL). `function` and `table` name the call and the
// source in errors.
RoleArguments resolve_role_arguments(const std::vector<LabelledColumn>& labelled,
                                     const OptionalTexts& quasi_identifiers, const OptionalTexts& hierarchies,
                                     const std::optional<std::string>& sensitive, const std::string& function,
                                     const std::string& table);

}  // namespace privrisk
