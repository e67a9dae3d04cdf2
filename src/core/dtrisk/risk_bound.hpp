// Proposition 1 of the paper ([LSFB09], A7): when every entity of the
// estimated dictionary θ̂ appears in the true dictionary θ with equal or more
// general values (θ̂ ≪ θ, Definition 5), ids are unique in θ̂, and every source
// record has a counterpart in θ̂ (an entry at least as specific), then for every
// disclosure δ, with exact hierarchical matching and Ψ ≡ 0, R(δ, θ) ≤ R(δ, θ̂).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "hierarchy/hierarchy.hpp"

namespace privrisk {

using Tuple = std::vector<std::optional<std::string>>;  // nullopt: ⊥

struct DictionaryEntry {
    std::string id;
    Tuple values;
};

// general ⪰ specific on every attribute (⊥ generalizes everything; no hierarchy: equality).
bool tuple_generalizes(const std::vector<const Hierarchy*>& hierarchies, const Tuple& general, const Tuple& specific);

struct RiskBoundCheck {
    bool unique_ids = true, dominated = true, counterparts = true;
    bool holds() const { return unique_ids && dominated && counterparts; }
    std::string reason;  // the first condition that fails, naming an id or a record
};

RiskBoundCheck check_risk_bound(const std::vector<const Hierarchy*>& hierarchies,
                                const std::vector<DictionaryEntry>& estimated,
                                const std::vector<DictionaryEntry>& truth, const std::vector<Tuple>& records);

}  // namespace privrisk
