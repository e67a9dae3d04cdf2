#include "profiles/release_measures.hpp"

#include <cstdlib>

#include "ck/ck_safety.hpp"
#include "common/json_text.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

ReleaseMeasures release_measures(const ContingencyTable& table, bool sensitive, const MeasureParameters& params,
                                 int kmax) {
    ReleaseMeasures m;
    m.rows = table.rows();
    m.classes = table.classes();
    m.sensitive = sensitive;
    for (const MeasureInfo& info : measure_registry()) {
        if (!info.of_table || (info.needs_sensitive && !sensitive) || (info.applies && !info.applies(table, params)))
            continue;
        m.values.push_back({&info, info.of_table(table, params)});
    }
    if (sensitive && table.rows() > 0) m.ck_curve = ck_disclosure_curve(table, kmax);
    return m;
}

std::string ReleaseMeasures::json() const {
    std::string json = "{\"rows\": " + std::to_string(rows) + ", \"classes\": " + std::to_string(classes);
    for (const Entry& e : values)
        json += std::string(", \"") + e.info->key + "\": " +
                (e.info->integer ? json_integer(e.value ? std::optional<int64_t>(int64_t(*e.value)) : std::nullopt)
                                 : json_number(e.value));
    if (!ck_curve.empty()) {
        std::string curve;
        for (double md : ck_curve) curve += (curve.empty() ? "" : ", ") + json_number(md);
        json += ", \"ck_disclosure_curve\": [" + curve + "]";
    }
    return json + "}";
}

std::optional<double> threshold_value(const Threshold& t, const RiskProfile& profile, const ReleaseMeasures& m,
                                      std::string* why) {
    bool reported = false;
    if (t.measure == "ck_max_disclosure") {
        const std::size_t k = std::strtoul(profile.audit_options.at("ck_k").c_str(), nullptr, 10);
        reported = !m.ck_curve.empty();
        if (k < m.ck_curve.size()) return m.ck_curve[k];
    } else {
        for (const ReleaseMeasures::Entry& e : m.values)
            if (t.measure == e.info->key) {
                if (e.value) return e.value;
                reported = true;
            }
    }
    *why = missing_measure_reason(t.measure, reported, m.sensitive);
    return std::nullopt;
}

std::string missing_measure_reason(const std::string& measure, bool reported, bool sensitive) {
    return reported                      ? "no row is released"
           : measure == "dt_risk"        ? "no dictionary: give the audit option dictionary"
           : !sensitive                  ? "no sensitive column"
           : measure == "t_ordered"      ? "t_ordered needs numeric sensitive values"
           : measure == "t_hierarchical" ? "no hierarchy of the sensitive values"
                                         : "audit() does not report it for this release";
}

}  // namespace privrisk
