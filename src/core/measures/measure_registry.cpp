#include "measures/measure_registry.hpp"

#include <charconv>

#include "common/error.hpp"
#include "measures/measures.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

namespace {

using Table = const ContingencyTable&;
using Params = const MeasureParameters&;

std::optional<double> as_double(std::optional<int64_t> v) {
    return v ? std::optional<double>(static_cast<double>(*v)) : std::nullopt;
}

std::vector<MeasureInfo> build() {
    return {
        {MeasureId::KAnonymity, "k_anonymity", false, "rows", true, "k",
         [](Table t, Params) { return as_double(k_anonymity(t)); }, nullptr},
        {MeasureId::ProsecutorRisk, "prosecutor_risk", false, "probability", false, "max_risk",
         [](Table t, Params) { return prosecutor_risk(t); }, nullptr},
        {MeasureId::AverageRisk, "average_risk", false, "probability", false, "average_risk",
         [](Table t, Params) { return average_risk(t); }, nullptr},
        {MeasureId::RecordsAtRisk, "records_at_risk", false, "share of rows", false, nullptr,
         [](Table t, Params p) { return records_at_risk(t, p.risk_threshold); }, nullptr},
        {MeasureId::LDistinct, "l_distinct", true, "values", false, "l (l_kind distinct)",
         [](Table t, Params) { return l_distinct(t); }, nullptr},
        {MeasureId::LEntropy, "l_entropy", true, "values", false, "l (l_kind entropy)",
         [](Table t, Params) { return l_entropy(t); }, nullptr},
        {MeasureId::LRecursive, "l_recursive", true, "values", false, "l (l_kind recursive, l_c)",
         [](Table t, Params p) { return l_recursive(t, p.l_c); }, nullptr},
        {MeasureId::TEqual, "t_equal", true, "distance in [0, 1]", false, "t (t_kind equal)",
         [](Table t, Params) { return t_equal(t); }, nullptr},
        {MeasureId::TOrdered, "t_ordered", true, "distance in [0, 1]", false, "t (t_kind ordered)",
         [](Table t, Params) { return t_ordered(t); }, [](Table t, Params) { return values_are_numbers(t); }},
        {MeasureId::THierarchical, "t_hierarchical", true, "distance in [0, 1]", false, "t (t_kind hierarchical)",
         [](Table t, Params p) { return t_hierarchical(t, *p.sensitive_hierarchy); },
         [](Table, Params p) { return p.sensitive_hierarchy != nullptr; }},
        {MeasureId::DeltaDisclosure, "delta_disclosure", true, "nats", false, "delta",
         [](Table t, Params) { return delta_disclosure(t); }, nullptr},
        {MeasureId::AKnow, "a_know", true, "probability", false, nullptr, [](Table t, Params) { return a_know(t); },
         nullptr},
        {MeasureId::AAcc, "a_acc", true, "probability", false, nullptr, [](Table t, Params) { return a_acc(t); },
         nullptr},
        {MeasureId::InformationGain, "information_gain", true, "nats", false, nullptr,
         [](Table t, Params) { return information_gain(t); }, nullptr},
        {MeasureId::CkMaxDisclosure, "ck_max_disclosure", true, "probability", false, "c (with ck_k)", nullptr,
         nullptr},
    };
}

}  // namespace

const std::vector<MeasureInfo>& measure_registry() {
    static const std::vector<MeasureInfo> registry = build();
    return registry;
}

const MeasureInfo& measure_info(MeasureId id) {
    for (const MeasureInfo& m : measure_registry())
        if (m.id == id) return m;
    fail(ErrorKind::Internal, "a measure without an entry in the registry");
}

bool is_number(std::string_view value) {
    double x;
    return std::from_chars(value.data(), value.data() + value.size(), x).ptr == value.data() + value.size();
}

bool values_are_numbers(const ContingencyTable& table) {
    bool numeric = false;
    for (const auto& v : table.values()) {
        if (!v) continue;
        numeric = is_number(*v);
        if (!numeric) break;
    }
    return numeric;
}

}  // namespace privrisk
