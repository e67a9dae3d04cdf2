// profile_verdict (docs/profiles.md): a risk profile's thresholds against
// audit()'s report of a release, and the verdict.
#include "profiles/profile_verdict.hpp"

#include <cstdlib>

#include "ck/ck_safety.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/json_text.hpp"
#include "common/spi.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "profiles/release_measures.hpp"
#include "profiles/risk_profile.hpp"
#include "profiles/stored_profile.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace privrisk::pg {

ReleaseMeasures profile_release_measures(const ContingencyTable& table, bool sensitive, const RiskProfile& profile) {
    // parse_thresholds has checked each value's range.
    auto option = [&](const char* key) -> const std::string* {
        auto it = profile.audit_options.find(key);
        return it == profile.audit_options.end() ? nullptr : &it->second;
    };
    MeasureParameters params;
    if (const std::string* v = option("risk_threshold")) params.risk_threshold = std::strtod(v->c_str(), nullptr);
    if (const std::string* v = option("l_c")) params.l_c = std::strtod(v->c_str(), nullptr);
    if (const std::string* v = option("t_hierarchy"); v && sensitive)
        params.sensitive_hierarchy = &cached_hierarchy(*v);
    const std::string* kmax = option("ck_k");
    return release_measures(table, sensitive, params,
                            kmax ? int(std::strtol(kmax->c_str(), nullptr, 10)) : kDefaultCkK);
}

std::string profile_verdict(Spi& spi, const std::string& name, Oid source, const ReleaseMeasure& measure_of) {
    StoredProfile stored = load_profile(spi, name);
    RiskProfile profile = parse_thresholds(jsonb_datum(stored.thresholds));
    Verdict v = evaluate(profile, [&](const Threshold& t, std::string* why) -> std::optional<double> {
        if (t.measure != "epsilon") return measure_of(t, profile, why);
        spi.run(
            "SELECT pg_catalog.max(epsilon) FROM privrisk.budget_ledger "
            "WHERE relation OPERATOR(pg_catalog.=) $1",
            {oid_arg(REGCLASSOID, source)}, true);
        if (spi.null(0, 1)) *why = "no DP release of this table is recorded";
        return spi.null(0, 1) ? std::nullopt : std::optional<double>(spi.float8(0, 1));
    });
    std::string json =
        "{\"profile\": " + json_string(name) +
        ", \"profile_owner\": " + (stored.owner_now ? json_string(*stored.owner_now) : std::string("null")) +
        ", \"profile_orphaned\": " + (stored.owner_now ? "false" : "true") +
        (stored.owner_now ? std::string() : ", \"profile_owner_was\": " + json_string(stored.owner_name)) +
        ", \"publishable\": " + (v.publishable ? "true" : "false") + ", \"summary\": " + json_string(v.summary) +
        ", \"checks\": [";
    for (std::size_t i = 0; i < v.checks.size(); ++i) {
        const ThresholdCheck& c = v.checks[i];
        json += std::string(i ? ", " : "") + "{\"key\": " + json_string(c.threshold->key) +
                ", \"measure\": " + json_string(c.threshold->measure) + ", \"value\": " + json_number(c.value) +
                ", \"comparison\": " + json_string(comparison_symbol(c.threshold->comparison)) +
                ", \"threshold\": " + json_number(c.threshold->value) +
                ", \"passed\": " + (c.passed ? "true" : "false") + ", \"margin\": " + json_number(c.margin) +
                ", \"note\": " + (c.why.empty() ? std::string("null") : json_string(c.why)) + "}";
    }
    return json + "]}";
}

}  // namespace privrisk::pg

// profile_verdict(profile, audit jsonb, source regclass): each threshold of the
// profile against audit()'s report of the release, and the verdict.
PRIVRISK_FUNCTION(privrisk_profile_verdict) {
    std::string name(text_arg_view(fcinfo, 0, "profile"));
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
        fail(ErrorKind::InvalidParameter, "profile_verdict: audit and source must not be NULL");
    const Datum audit = PG_GETARG_DATUM(1);
    Oid source = PG_GETARG_OID(2);
    auto measure_of = [&](const Threshold& t, const RiskProfile& profile, std::string* why) -> std::optional<double> {
        std::vector<std::string> path{t.measure};
        if (t.measure == "ck_max_disclosure") path = {"ck_disclosure_curve", profile.audit_options.at("ck_k")};
        if (t.measure == "dt_risk") path = {"dt_risk", "risk"};
        // The measure, read as (audit #>> path)::float8 would; else whether audit() reported it at
        // all, and whether the release has a sensitive column (audit() reports l_distinct then).
        const JsonbAt at = jsonb_text_at(audit, path);
        if (at.text) {
            const char* text = at.text->c_str();
            return pg_call([&] { return DatumGetFloat8(DirectFunctionCall1(float8in, CStringGetDatum(text))); });
        }
        *why = missing_measure_reason(t.measure, jsonb_text_at(audit, {path.front()}).found,
                                      jsonb_text_at(audit, {"l_distinct"}).found);
        return std::nullopt;
    };
    Spi spi;
    std::string json = profile_verdict(spi, name, source, measure_of);
    spi.finish();
    return jsonb_datum(json);
}
