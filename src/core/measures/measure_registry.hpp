// Every measure of a release, once: its key (the same in audit()'s report, the
// search's report and the docs), whether it needs a sensitive attribute, its
// unit, the search constraint that bounds it, and how it is computed from the
// table of classes. audit() and the search report loop over this table.
#pragma once

#include <functional>
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "classes/contingency_table.hpp"
#include "hierarchy/hierarchy.hpp"

namespace privrisk {

enum class MeasureId {
    KAnonymity,
    ProsecutorRisk,
    AverageRisk,
    RecordsAtRisk,
    LDistinct,
    LEntropy,
    LRecursive,
    TEqual,
    TOrdered,
    THierarchical,
    DeltaDisclosure,
    AKnow,
    AAcc,
    InformationGain,
    CkMaxDisclosure,
};

// The defaults of the measures' parameters, written once: audit(), the search and the
// bounds' registry (profiles/bound_keys, which shows them) take them from here.
inline constexpr double kDefaultRiskThreshold = 0.2;  // records_at_risk
inline constexpr double kDefaultLC = 3;               // recursive (c, ℓ)-diversity

// What a measure's computation may need besides the classes.
struct MeasureParameters {
    double risk_threshold = kDefaultRiskThreshold;   // records_at_risk
    double l_c = kDefaultLC;                         // recursive (c, ℓ)-diversity
    const Hierarchy* sensitive_hierarchy = nullptr;  // hierarchical t-closeness
};

struct MeasureInfo {
    MeasureId id;
    const char* key;  // in every report
    bool needs_sensitive;
    const char* unit;
    bool integer;            // a count (reported without a fraction)
    const char* constraint;  // the search constraint that bounds it, or nullptr
    // The release's level of the measure; nullopt for an empty release. Not
    // set for measures only the search computes (ck_max_disclosure at the
    // constraint's k).
    std::function<std::optional<double>(const ContingencyTable&, const MeasureParameters&)> of_table;
    // Whether the release has the measure at all (reported, possibly as null)
    // or not (left out of the report); empty: always.
    std::function<bool(const ContingencyTable&, const MeasureParameters&)> applies;
};

// In report order.
const std::vector<MeasureInfo>& measure_registry();
const MeasureInfo& measure_info(MeasureId id);

// Every value is a number (⊥ aside): the values have the order t_ordered needs.
bool values_are_numbers(const ContingencyTable& table);
bool is_number(std::string_view value);

}  // namespace privrisk
