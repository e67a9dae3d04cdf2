#include "profiles/risk_profile.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "common/error.hpp"
#include "common/no_postgres.hpp"
#include "measures/measures.hpp"
#include "profiles/bound_keys.hpp"

namespace privrisk {

const char* const kProfileKeys =
    "k, max_risk, average_risk, records_at_risk (with risk_threshold), l (with "
    "l_kind, l_c), t (with t_kind, "
    "t_hierarchy), delta, c (with ck_k), dt_risk, epsilon";

namespace {

bool met(Comparison c, double value, double bound) {
    if (std::isnan(value)) return false;
    if (std::isinf(value)) {  // strictly_below treats infinite gaps as ties: compare plainly
        switch (c) {
            case Comparison::AtLeast:
                return value >= bound;
            case Comparison::AtMost:
                return value <= bound;
            case Comparison::Below:
                return value < bound;
        }
    }
    switch (c) {
        case Comparison::AtLeast:
            return !strictly_below(value, bound);
        case Comparison::AtMost:
            return !strictly_below(bound, value);
        case Comparison::Below:
            return strictly_below(value, bound);
    }
    return false;
}

// A threshold's number. Not std::stod: it throws out_of_range for a subnormal value
// (1e-320), which the options' checks accept as the tiny number it is.
double number(const std::map<std::string, std::string>& texts, const char* key) {
    const std::string& text = texts.at(key);
    char* end = nullptr;
    errno = 0;
    double v = std::strtod(text.c_str(), &end);
    if (end == text.c_str() || *end != '\0' || (errno == ERANGE && std::isinf(v)))
        fail(ErrorKind::InvalidParameter,
             std::string("profile key ") + key + " must be a finite number, got " + quote_value(text));
    return v;
}

}  // namespace

const char* comparison_symbol(Comparison c) {
    switch (c) {
        case Comparison::AtLeast:
            return ">=";
        case Comparison::AtMost:
            return "<=";
        case Comparison::Below:
            return "<";
    }
    return "?";
}

RiskProfile RiskProfile::from_texts(const std::map<std::string, std::string>& texts) {
    auto has = [&](const char* key) { return texts.count(key) > 0; };
    for (const BoundKey& b : bound_keys())
        if (b.qualifies && (b.uses & kProfileKey) && has(b.name) && !has(b.qualifies))
            fail(ErrorKind::InvalidParameter, std::string("profile key ") + b.name + " qualifies " + b.qualifies +
                                                  ", which the profile does not set");
    if (has("c") && !has("ck_k"))
        fail(ErrorKind::InvalidParameter, "profile key c needs ck_k (the attacker's number of implications)");
    RiskProfile p;
    // Every qualifier of a threshold is fixed by the profile (its default when not given), so a
    // caller's option cannot change what the threshold bounds.
    auto value = [&](const char* key) { return has(key) ? texts.at(key) : std::string(bound_key(key).fallback); };
    const std::string l_kind = value("l_kind"), t_kind = value("t_kind");
    if (t_kind == "hierarchical" && has("t") && !has("t_hierarchy"))
        fail(ErrorKind::InvalidParameter,
             "profile key t_kind hierarchical needs t_hierarchy (the sensitive "
             "column's hierarchy)");
    for (const BoundKey& b : bound_keys()) {
        if (!b.measure || !has(b.name)) continue;
        const std::string measure = b.measure == std::string("l_*")   ? "l_" + l_kind
                                    : b.measure == std::string("t_*") ? "t_" + t_kind
                                                                      : b.measure;
        p.thresholds.push_back(Threshold{b.name, measure, b.comparison, number(texts, b.name)});
    }
    if (has("records_at_risk")) p.audit_options["risk_threshold"] = value("risk_threshold");
    if (has("l") && l_kind == "recursive") p.audit_options["l_c"] = value("l_c");
    if (has("t_hierarchy")) p.audit_options["t_hierarchy"] = texts.at("t_hierarchy");
    if (has("ck_k")) p.audit_options["ck_k"] = texts.at("ck_k");
    if (p.thresholds.empty())
        fail(ErrorKind::InvalidParameter, std::string("a profile sets at least one threshold: ") + kProfileKeys);
    for (const auto& [key, value] : texts) {
        const BoundKey* b = find_bound_key(key);
        if (b && !(b->uses & kSearchConstraint)) {  // records_at_risk, risk_threshold, dt_risk, epsilon
            if (p.not_for_search.empty()) p.not_for_search = key;
        } else {
            p.search_constraints[key] = value;
        }
    }
    if (has("l")) p.search_constraints["l_kind"] = l_kind;
    if (has("l") && l_kind == "recursive") p.search_constraints["l_c"] = p.audit_options.at("l_c");
    if (has("t")) p.search_constraints["t_kind"] = t_kind;
    return p;
}

Verdict evaluate(const RiskProfile& profile,
                 const std::function<std::optional<double>(const Threshold&, std::string* why)>& measure_of) {
    Verdict v;
    v.publishable = true;
    std::string failed;
    for (const Threshold& t : profile.thresholds) {
        ThresholdCheck c{&t, std::nullopt, false, std::nullopt, {}};
        c.value = measure_of(t, &c.why);
        if (c.value) {
            c.passed = met(t.comparison, *c.value, t.value);
            c.margin = t.comparison == Comparison::AtLeast ? *c.value - t.value : t.value - *c.value;
            // A strict bound met exactly is outside it: no room at all.
        }
        if (!c.passed) {
            v.publishable = false;
            failed += failed.empty() ? "" : ", ";
            if (c.value) {
                const char* opposite = t.comparison == Comparison::AtLeast  ? "<"
                                       : t.comparison == Comparison::AtMost ? ">"
                                                                            : ">=";
                failed += t.measure + " = " + number_text(*c.value) + " " + opposite + " " + number_text(t.value);
            } else {
                failed += t.measure + " unknown (" + c.why + ")";
            }
        }
        v.checks.push_back(std::move(c));
    }
    v.summary = v.publishable ? "publishable: every threshold is met" : "not publishable: " + failed;
    return v;
}

}  // namespace privrisk
