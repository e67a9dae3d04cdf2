#include "profiles/risk_profile.hpp"

#include <cerrno>
#include <cmath>
#include <cstdlib>

#include "common/error.hpp"
#include "common/no_postgres.hpp"
#include "measures/measures.hpp"

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
            case Comparison::AtLeast: return value >= bound;
            case Comparison::AtMost: return value <= bound;
            case Comparison::Below: return value < bound;
        }
    }
    switch (c) {
        case Comparison::AtLeast: return !strictly_below(value, bound);
        case Comparison::AtMost: return !strictly_below(bound, value);
        case Comparison::Below: return strictly_below(value, bound);
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
        fail(ErrorKind::InvalidParameter, std::string("profile key ") + key + " must be a finite number, got " + quote_value(text));
    return v;
}

}  // namespace

const char* comparison_symbol(Comparison c) {
    switch (c) {
        case Comparison::AtLeast: return ">=";
        case Comparison::AtMost: return "<=";
        case Comparison::Below: return "<";
    }
    return "?";
}

RiskProfile RiskProfile::from_texts(const std::map<std::string, std::string>& texts) {
    auto has = [&](const char* key) { return texts.count(key) > 0; };
    for (auto [qualifier, threshold] : {std::pair{"risk_threshold", "records_at_risk"},
                                        {"l_kind", "l"},
                                        {"l_c", "l"},
                                        {"t_kind", "t"},
                                        {"t_hierarchy", "t"},
                                        {"ck_k", "c"}})
        if (has(qualifier) && !has(threshold))
            fail(ErrorKind::InvalidParameter, std::string("profile key ") + qualifier + " qualifies " + threshold +
                                                  ", which the profile does not set");
    if (has("c") && !has("ck_k"))
        fail(ErrorKind::InvalidParameter, "profile key c needs ck_k (the attacker's number of implications)");
    RiskProfile p;
    auto add = [&](const char* key, std::string measure, Comparison c) {
        if (has(key)) p.thresholds.push_back(Threshold{key, std::move(measure), c, number(texts, key)});
    };
    add("k", "k_anonymity", Comparison::AtLeast);
    add("max_risk", "prosecutor_risk", Comparison::AtMost);
    add("average_risk", "average_risk", Comparison::AtMost);
    add("records_at_risk", "records_at_risk", Comparison::AtMost);
    if (has("records_at_risk"))
        p.audit_options["risk_threshold"] = has("risk_threshold") ? texts.at("risk_threshold") : "0.2";
    std::string l_kind = has("l_kind") ? texts.at("l_kind") : "distinct";
    add("l", "l_" + l_kind, Comparison::AtLeast);
    // Every qualifier of a threshold is fixed by the profile (its default when not given), so a
    // caller's option cannot change what the threshold bounds.
    if (has("l") && l_kind == "recursive") p.audit_options["l_c"] = has("l_c") ? texts.at("l_c") : "3";
    std::string t_kind = has("t_kind") ? texts.at("t_kind") : "equal";
    if (t_kind == "hierarchical" && has("t") && !has("t_hierarchy"))
        fail(ErrorKind::InvalidParameter,
             "profile key t_kind hierarchical needs t_hierarchy (the sensitive "
             "column's hierarchy)");
    add("t", "t_" + t_kind, Comparison::AtMost);
    if (has("t_hierarchy")) p.audit_options["sensitive_hierarchy"] = texts.at("t_hierarchy");
    add("delta", "delta_disclosure", Comparison::Below);
    add("c", "ck_max_disclosure", Comparison::Below);
    if (has("ck_k")) p.audit_options["kmax"] = texts.at("ck_k");
    add("dt_risk", "dt_risk", Comparison::AtMost);
    add("epsilon", "epsilon", Comparison::AtMost);
    if (p.thresholds.empty())
        fail(ErrorKind::InvalidParameter, std::string("a profile sets at least one threshold: ") + kProfileKeys);
    for (const auto& [key, value] : texts) {
        if (key == "records_at_risk" || key == "risk_threshold" || key == "epsilon" || key == "dt_risk") {
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
