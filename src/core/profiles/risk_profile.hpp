// A risk profile: a named set of thresholds a release must meet to be
// published (docs/profiles.md), and the verdict of a release against it. The
// thresholds use the search's constraint keys, and compare as the search does
// (docs/glossary.md): k, ℓ, max_risk, average_risk, records_at_risk, t,
// dt_risk and ε are met at the bound (within 1e-12 relative); δ and (c,k) are
// strict.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace privrisk {

enum class Comparison { AtLeast, AtMost, Below };

struct Threshold {
    std::string key;      // the profile's key: "k", "l", "c", …
    std::string measure;  // what it bounds, as audit() reports it: "k_anonymity",
                          // "l_distinct", "ck_max_disclosure", …
    Comparison comparison;
    double value;
};

struct RiskProfile {
    std::vector<Threshold> thresholds;  // in the order of kThresholdKeys
    // What audit() must be told to compute the measures (its option keys), from
    // the qualifiers: risk_threshold, l_c, t_hierarchy, ck_k.
    std::map<std::string, std::string> audit_options;
    // The search's constraints (its keys), every qualifier fixed: the profile's
    // own, or its default. `not_for_search`: a key the search cannot take as a
    // constraint (records_at_risk, risk_threshold, epsilon, dt_risk), if any.
    std::map<std::string, std::string> search_constraints;
    std::string not_for_search;

    // From a profile's keys and their values as text (already range-checked by
    // the caller against profile_option_specs). Qualifiers without their
    // threshold (l_kind without l, ck_k without c…) and an empty profile are
    // errors.
    static RiskProfile from_texts(const std::map<std::string, std::string>& texts);
};

// A threshold's outcome. `value` nullopt: the release has no such measure (no
// row left, no sensitive column, no dictionary, no DP release): not met.
struct ThresholdCheck {
    const Threshold* threshold;
    std::optional<double> value;
    bool passed;
    std::optional<double> margin;  // how far inside (> 0) or outside (< 0) the
                                   // bound, in the measure's unit
    std::string why;               // for a missing value
};

struct Verdict {
    std::vector<ThresholdCheck> checks;
    bool publishable;
    std::string summary;  // "not publishable: k_anonymity = 1 < 5"
};

// `measure_of(key)`: the release's value of a measure; nullopt with `why` set
// when it has none.
Verdict evaluate(const RiskProfile& profile,
                 const std::function<std::optional<double>(const Threshold&, std::string* why)>& measure_of);

const char* comparison_symbol(Comparison c);  // ">=", "<=", "<"

// The profile keys in order (for messages and docs).
extern const char* const kProfileKeys;

}  // namespace privrisk
