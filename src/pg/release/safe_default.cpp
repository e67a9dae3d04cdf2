#include "release/safe_default.hpp"

#include <algorithm>

#include "common/error.hpp"
#include "common/guard.hpp"
#include "labels/column_labels.hpp"

namespace privrisk::pg {

std::vector<DefaultHidden> hidden_by_default(const Policy& policy) {
    std::vector<DefaultHidden> hidden;
    const Oid source = policy.source;
    for (const TableColumn& c : table_columns(source)) {
        const AttrNumber attno = c.attno;
        // By number, as a release binds rules: a column renamed since is stopped by
        // check_bound_columns, and a new column of a ruled name is not ruled.
        const bool ruled = std::any_of(policy.rules.begin(), policy.rules.end(),
                                       [&](const PolicyRule& r) { return r.attno == attno; });
        if (!c.label) {
            if (policy.unlabelled_hidden) hidden.push_back({c.name, attno, "unlabelled", true});
        } else if (c.label->role == ColumnRole::Identifier) {  // never disclosed as it is, whatever the rules say
            const bool pseudonymized = std::any_of(policy.rules.begin(), policy.rules.end(), [&](const PolicyRule& r) {
                return r.attno == attno && r.op == DisclosureOp::Pseudonymize;
            });
            hidden.push_back({c.name, attno,
                              pseudonymized ? "labelled identifier, pseudonymized" : "labelled identifier", true,
                              pseudonymized});
        } else if ((c.label->role == ColumnRole::QuasiIdentifier || c.label->role == ColumnRole::Sensitive) && !ruled) {
            hidden.push_back({c.name, attno, std::string("labelled ") + role_name(c.label->role), false});
        }
    }
    return hidden;
}

std::string describe_hidden(const std::vector<DefaultHidden>& hidden) {
    std::vector<std::string> reasons;
    for (const DefaultHidden& h : hidden)
        if (!h.pseudonymized && std::find(reasons.begin(), reasons.end(), h.reason) == reasons.end())
            reasons.push_back(h.reason);
    std::string text;
    for (const std::string& reason : reasons) {
        std::string names;
        for (const DefaultHidden& h : hidden)
            if (h.reason == reason && !h.pseudonymized) names += (names.empty() ? "" : ", ") + quote_value(h.column);
        text += (text.empty() ? "" : "; ") + names + " (" + reason + ")";
    }
    return text;
}

void notice_hidden_by_default(const Policy& policy, const std::string& who) {
    std::vector<DefaultHidden> hidden = hidden_by_default(policy);
    hidden.erase(std::remove_if(hidden.begin(), hidden.end(), [](const DefaultHidden& h) { return h.pseudonymized; }),
                 hidden.end());
    if (hidden.empty()) return;
    std::string message = who + ": policy " + quote_value(policy.name) + " releases NULL in every row for " +
                          describe_hidden(hidden) +
                          "; a rule discloses a quasi_identifier or sensitive column "
                          "(privrisk.add_rule(policy, column, 'hide', 'true') releases it as it is)";
    pg_call([&] { ereport(NOTICE, (errmsg("%s", message.c_str()))); });
}

}  // namespace privrisk::pg
