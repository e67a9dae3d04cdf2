// The measures of one release as audit() reports them (docs/measures.md): every
// measure of the registry that applies to its classes and, with a sensitive
// column, the (c,k) disclosure curve up to kmax; and what a profile's threshold
// reads from them. audit() reports them; search(…, profile) gives the verdict of
// the node it found from them, out of its own read of the source.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "measures/measure_registry.hpp"
#include "measures/measures.hpp"
#include "profiles/risk_profile.hpp"

namespace privrisk {

struct ReleaseMeasures {
    struct Entry {
        const MeasureInfo* info;
        std::optional<double> value;  // nullopt: reported as null (no row is released)
    };
    int64_t rows = 0, classes = 0;
    bool sensitive = false;
    std::vector<Entry> values;     // in registry order: the measures that apply
    std::vector<double> ck_curve;  // MD at k = 0 … kmax; empty without a sensitive column or without rows

    // audit()'s report: {"rows": …, "classes": …, <measure>: …, "ck_disclosure_curve": […]}.
    std::string json() const;
};

ReleaseMeasures release_measures(const ContingencyTable& table, bool sensitive, const MeasureParameters& params,
                                 int kmax);

// The value of what `t` bounds, or nullopt with `why` set: ck_max_disclosure is
// the curve at the profile's ck_k. Not for epsilon, which no release's classes give.
std::optional<double> threshold_value(const Threshold& t, const RiskProfile& profile, const ReleaseMeasures& m,
                                      std::string* why);

// Why a report lacks a threshold's measure: `reported` whether it has the key (as
// null), `sensitive` whether it measured a sensitive column.
std::string missing_measure_reason(const std::string& measure, bool reported, bool sensitive);

}  // namespace privrisk
