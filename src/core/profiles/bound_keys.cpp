#include "profiles/bound_keys.hpp"

#include <limits>

#include "ck/ck_safety.hpp"
#include "common/error.hpp"
#include "measures/measure_registry.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();
constexpr unsigned kAll = kAuditOption | kSearchConstraint | kProfileKey;
constexpr unsigned kSearchAndProfile = kSearchConstraint | kProfileKey;
constexpr unsigned kDictionary = kAuditOption | kSearchConstraint | kDictionaryOption;

BoundKey threshold(BoundKey::Kind kind, const char* name, double lo, double hi, bool lo_open, unsigned uses,
                   const char* measure, Comparison comparison) {
    BoundKey b{kind, name, lo, hi, lo_open, {}, nullptr, uses};
    b.measure = measure;
    b.comparison = comparison;
    return b;
}

BoundKey qualifier(BoundKey::Kind kind, const char* name, double lo, double hi, bool lo_open,
                   std::vector<const char*> choices, const char* fallback, unsigned uses, const char* qualifies,
                   const char* alias = nullptr) {
    BoundKey b{kind, name, lo, hi, lo_open, std::move(choices), fallback, uses, alias};
    b.qualifies = qualifies;
    return b;
}

BoundKey option(BoundKey::Kind kind, const char* name, std::vector<const char*> choices, const char* fallback,
                unsigned uses, double hi = 0) {
    BoundKey b{kind, name, 0, hi, false, std::move(choices), fallback, uses};
    return b;
}

std::vector<BoundKey> build() {
    using K = BoundKey;
    using C = Comparison;
    // The measures' own defaults, as text: built once, as the registry is.
    static const std::string risk_threshold = number_text(kDefaultRiskThreshold), l_c = number_text(kDefaultLC),
                             ck_k = number_text(kDefaultCkK);
    return {
        threshold(K::Integer, "k", 1, 9.3e18, false, kSearchAndProfile, "k_anonymity", C::AtLeast),
        threshold(K::Number, "max_risk", 0, 1, true, kSearchAndProfile, "prosecutor_risk", C::AtMost),
        threshold(K::Number, "average_risk", 0, 1, true, kSearchAndProfile, "average_risk", C::AtMost),
        threshold(K::Number, "records_at_risk", 0, 1, false, kProfileKey, "records_at_risk", C::AtMost),
        qualifier(K::Number, "risk_threshold", 0, 1, false, {}, risk_threshold.c_str(), kAuditOption | kProfileKey,
                  "records_at_risk"),
        threshold(K::Number, "l", 1, 1e9, false, kSearchAndProfile, "l_*", C::AtLeast),
        qualifier(K::Text, "l_kind", 0, 0, false, {"distinct", "entropy", "recursive"}, "distinct", kSearchAndProfile,
                  "l"),
        qualifier(K::Number, "l_c", 0, kInf, true, {}, l_c.c_str(), kAll, "l"),
        threshold(K::Number, "t", 0, 1, false, kSearchAndProfile, "t_*", C::AtMost),
        qualifier(K::Text, "t_kind", 0, 0, false, {"equal", "ordered", "hierarchical"}, "equal", kSearchAndProfile,
                  "t"),
        qualifier(K::Text, "t_hierarchy", 0, 0, false, {}, nullptr, kAll, "t", "sensitive_hierarchy"),
        threshold(K::Number, "delta", 0, 1e9, true, kSearchAndProfile, "delta_disclosure", C::Below),
        threshold(K::Number, "c", 0, 1, true, kSearchAndProfile, "ck_max_disclosure", C::Below),
        // audit() reports the (c,k) curve up to ck_k (kDefaultCkK when not given); c needs it.
        qualifier(K::Integer, "ck_k", 0, kMaxCkK, false, {}, ck_k.c_str(), kAll, "c", "kmax"),
        threshold(K::Number, "dt_risk", 0, kInf, false, kProfileKey, "dt_risk", C::AtMost),
        threshold(K::Number, "epsilon", 0, kInf, true, kProfileKey, "epsilon", C::AtMost),
        option(K::Number, "max_suppression", {}, "0", kSearchConstraint, 1),
        option(K::Text, "target", {}, nullptr, kAuditOption),
        option(K::Text, "classifier", {"naive_bayes", "majority"}, "naive_bayes", kAuditOption),
        // A dictionary (decision-theoretic risk): reported by audit() and for the node search() finds.
        option(K::Text, "dictionary", {}, nullptr, kDictionary),
        option(K::TextArray, "mapping", {}, nullptr, kDictionary),
        option(K::NumberArray, "leaf_weights", {}, nullptr, kDictionary, kInf),
        option(K::Text, "sensitivity_family", {"multiplicative", "linear"}, "multiplicative", kDictionary),
    };
}

}  // namespace

const std::vector<BoundKey>& bound_keys() {
    static const std::vector<BoundKey> keys = build();
    return keys;
}

const BoundKey* find_bound_key(std::string_view name) {
    for (const BoundKey& b : bound_keys())
        if (name == b.name || (b.alias && name == b.alias)) return &b;
    return nullptr;
}

const BoundKey& bound_key(std::string_view name) {
    const BoundKey* b = find_bound_key(name);
    if (!b) fail(ErrorKind::Internal, "no bound key " + std::string(name));
    return *b;
}

}  // namespace privrisk
