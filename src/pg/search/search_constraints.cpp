// Constraints from a search's constraints jsonb (search_constraints.hpp).
#include "search/search_constraints.hpp"

#include <cmath>
#include <cstdlib>
#include <optional>

#include "ck/ck_safety.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/json_text.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "measures/measures.hpp"
#include "profiles/bound_keys.hpp"

namespace privrisk::pg {
namespace {

// A number within its key's range (profiles/bound_keys.hpp): search_lattice is callable
// without the checks of check_options before it.
void check_range(const char* name, const std::optional<double>& v) {
    if (!v) return;
    const BoundKey& b = bound_key(name);
    if (!std::isfinite(*v) || *v > b.hi || *v < b.lo || (b.lo_open && *v == b.lo))
        fail(ErrorKind::InvalidParameter, std::string("constraint ") + name + " must be in " + (b.lo_open ? "(" : "[") +
                                              number_text(b.lo) + ", " + number_text(b.hi) + "], got " +
                                              number_text(*v));
}

}  // namespace

Constraints parse_constraints(const std::map<std::string, std::string>& given) {
    auto text_of = [&](const char* key) -> std::optional<std::string> {
        auto it = given.find(key);
        return it == given.end() ? std::nullopt : std::optional<std::string>(it->second);
    };
    auto number = [&](const char* key) -> std::optional<double> {
        auto t = text_of(key);
        return t ? std::optional<double>(std::strtod(t->c_str(), nullptr)) : std::nullopt;
    };
    auto kind_of = [&](const char* key, const char* fallback) { return text_of(key).value_or(fallback); };
    Constraints q;
    if (auto k = text_of("k")) {
        q.k = std::strtoll(k->c_str(), nullptr, 10);
        if (*q.k < 1) fail(ErrorKind::InvalidParameter, "constraint k must be at least 1, got " + std::to_string(*q.k));
    }
    q.l = number("l");
    check_range("l", q.l);
    q.l_kind = choice_of<LDiversity>(
        kind_of("l_kind", "distinct"), "l_kind",
        {{"distinct", LDiversity::Distinct}, {"entropy", LDiversity::Entropy}, {"recursive", LDiversity::Recursive}});
    if (auto c = number("l_c")) q.l_c = *c;
    check_c(q.l_c);
    q.t = number("t");
    check_range("t", q.t);
    q.t_kind = choice_of<TCloseness>(
        kind_of("t_kind", "equal"), "t_kind",
        {{"equal", TCloseness::Equal}, {"ordered", TCloseness::Ordered}, {"hierarchical", TCloseness::Hierarchical}});
    if (q.t && q.t_kind == TCloseness::Hierarchical) {
        auto h = text_of("t_hierarchy");
        if (!h) fail(ErrorKind::InvalidParameter, "t_kind hierarchical needs t_hierarchy");
        q.t_hierarchy = &cached_hierarchy(*h);
    }
    q.delta = number("delta");
    check_range("delta", q.delta);
    q.c = number("c");
    check_range("c", q.c);
    if (auto k = text_of("ck_k")) q.ck_k = static_cast<int>(std::strtol(k->c_str(), nullptr, 10));
    check_ck_k(q.ck_k);
    q.max_risk = number("max_risk");
    check_range("max_risk", q.max_risk);
    q.average_risk = number("average_risk");
    check_range("average_risk", q.average_risk);
    q.max_suppression = number("max_suppression").value_or(0);
    check_range("max_suppression", q.max_suppression);
    return q;
}

}  // namespace privrisk::pg
