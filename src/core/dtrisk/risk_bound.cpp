#include "dtrisk/risk_bound.hpp"

#include <unordered_map>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

bool tuple_generalizes(const std::vector<const Hierarchy*>& hierarchies, const Tuple& general, const Tuple& specific) {
    for (std::size_t j = 0; j < hierarchies.size(); ++j) {
        if (!general[j]) continue;
        if (!specific[j]) return false;
        if (hierarchies[j] ? !hierarchies[j]->generalizes(Value(*general[j]), Value(*specific[j]))
                           : *general[j] != *specific[j])
            return false;
    }
    return true;
}

RiskBoundCheck check_risk_bound(const std::vector<const Hierarchy*>& hierarchies,
                                const std::vector<DictionaryEntry>& estimated,
                                const std::vector<DictionaryEntry>& truth, const std::vector<Tuple>& records) {
    RiskBoundCheck c;
    std::unordered_map<std::string, const DictionaryEntry*> by_id;
    for (const auto& e : estimated)
        if (!by_id.emplace(e.id, &e).second && c.unique_ids) {
            c.unique_ids = false;
            c.reason = "id " + quote_value(e.id) + " appears twice in the estimated dictionary";
        }
    std::unordered_multimap<std::string, const DictionaryEntry*> true_by_id;
    for (const auto& e : truth) true_by_id.emplace(e.id, &e);
    for (const auto& e : estimated) {
        auto [lo, hi] = true_by_id.equal_range(e.id);
        bool found = false;
        for (auto it = lo; it != hi && !found; ++it)
            found = tuple_generalizes(hierarchies, it->second->values, e.values);
        if (!found) {
            c.dominated = false;
            if (c.reason.empty())
                c.reason = "entity " + quote_value(e.id) +
                           " of the estimated dictionary has no entry in the true "
                           "dictionary with equal or more general values";
            break;
        }
    }
    for (std::size_t i = 0; i < records.size(); ++i) {
        bool found = false;
        for (const auto& e : estimated)
            if (tuple_generalizes(hierarchies, records[i], e.values)) {
                found = true;
                break;
            }
        if (!found) {
            c.counterparts = false;
            if (c.reason.empty())
                c.reason = "source record " + std::to_string(i + 1) + " has no counterpart in the estimated dictionary";
            break;
        }
    }
    return c;
}

}  // namespace privrisk
