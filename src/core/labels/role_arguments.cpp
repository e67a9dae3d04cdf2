#include "labels/role_arguments.hpp"

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

RoleArguments resolve_role_arguments(const std::vector<LabelledColumn>& labelled,
                                     const OptionalTexts& quasi_identifiers, const OptionalTexts& hierarchies,
                                     const std::optional<std::string>& sensitive, const std::string& function,
                                     const std::string& table) {
    RoleArguments out;
    if (quasi_identifiers) {
        for (std::size_t i = 0; i < quasi_identifiers->size(); ++i) {
            const auto& q = (*quasi_identifiers)[i];
            if (!q)
                fail(ErrorKind::InvalidParameter,
                     "quasi_identifiers must not contain NULL (element " + std::to_string(i + 1) + ")");
            out.quasi_identifiers.push_back(*q);
        }
    } else {
        for (const LabelledColumn& c : labelled)
            if (c.label.role == ColumnRole::QuasiIdentifier) out.quasi_identifiers.push_back(c.name);
        if (out.quasi_identifiers.empty())
            fail(ErrorKind::InvalidParameter, function +
                                                  ": no quasi-identifiers: pass quasi_identifiers, or label the "
                                                  "columns of " +
                                                  table +
                                                  " with SECURITY LABEL FOR privrisk ON COLUMN … IS "
                                                  "'quasi_identifier'");
    }
    if (hierarchies) {
        out.hierarchies = hierarchies;
    } else {
        std::vector<std::optional<std::string>> found;
        bool any = false;
        for (const std::string& q : out.quasi_identifiers) {
            std::optional<std::string> h;
            for (const LabelledColumn& c : labelled)
                if (c.name == q && c.label.role == ColumnRole::QuasiIdentifier && !c.label.hierarchy.empty())
                    h = c.label.hierarchy;
            any = any || h.has_value();
            found.push_back(h);
        }
        if (any) out.hierarchies = found;
    }
    if (sensitive) {
        out.sensitive = sensitive;
    } else {
        std::vector<std::string> labelled_sensitive;
        for (const LabelledColumn& c : labelled)
            if (c.label.role == ColumnRole::Sensitive) labelled_sensitive.push_back(c.name);
        if (labelled_sensitive.size() > 1) {
            std::string names;
            for (const std::string& n : labelled_sensitive) names += (names.empty() ? "" : ", ") + quote_value(n);
            fail(ErrorKind::InvalidParameter,
                 function + ": " + table + " has " + std::to_string(labelled_sensitive.size()) +
                     " columns labelled sensitive (" + names + "): pass sensitive => one of them");
        }
        if (!labelled_sensitive.empty()) out.sensitive = labelled_sensitive.front();
    }
    return out;
}

}  // namespace privrisk
