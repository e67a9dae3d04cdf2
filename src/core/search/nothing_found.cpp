#include "search/nothing_found.hpp"

#include "common/error.hpp"
#include "common/no_postgres.hpp"
#include "measures/measures.hpp"

namespace privrisk {

std::vector<ConstraintCheck> check_constraints(const NodeReport& r, const Constraints& q, int64_t rows) {
    std::vector<ConstraintCheck> out;
    // A measure that is absent (no row released) passes when the node qualifies: an empty release.
    auto add = [&](const char* name, const std::optional<double>& value, double threshold, bool passed) {
        out.push_back(ConstraintCheck{name, value, threshold, value ? passed : r.safe});
    };
    std::optional<double> k;
    if (r.k) k = double(*r.k);
    if (q.k) add("k", k, double(*q.k), k&&* k >= double(*q.k));
    if (q.l) add("l", r.l, *q.l, r.l && !strictly_below(*r.l, *q.l));
    if (q.t) add("t", r.t, *q.t, r.t && !strictly_below(*q.t, *r.t));
    if (q.delta) add("delta", r.delta, *q.delta, r.delta && strictly_below(*r.delta, *q.delta));
    if (q.c) add("c", r.ck, *q.c, r.ck && strictly_below(*r.ck, *q.c));
    if (q.max_risk) add("max_risk", r.max_risk, *q.max_risk, r.max_risk && !strictly_below(*q.max_risk, *r.max_risk));
    if (q.average_risk)
        add("average_risk", r.average_risk, *q.average_risk,
            r.average_risk && !strictly_below(*q.average_risk, *r.average_risk));
    if (q.max_suppression > 0) {
        const double share = rows ? double(r.violating) / double(rows) : 0;
        out.push_back(ConstraintCheck{"max_suppression", share, q.max_suppression,
                                      !strictly_below(q.max_suppression * double(rows), double(r.violating))});
    }
    return out;
}

Constraints without_failed(const Constraints& q, const std::vector<ConstraintCheck>& failing) {
    Constraints relaxed = q;
    for (const ConstraintCheck& c : failing) {
        if (c.passed) continue;
        if (c.constraint == "k") relaxed.k.reset();
        else if (c.constraint == "l") relaxed.l.reset();
        else if (c.constraint == "t") relaxed.t.reset();
        else if (c.constraint == "delta") relaxed.delta.reset();
        else if (c.constraint == "c") relaxed.c.reset();
        else if (c.constraint == "max_risk") relaxed.max_risk.reset();
        else if (c.constraint == "average_risk") relaxed.average_risk.reset();
        else if (c.constraint == "max_suppression") relaxed.max_suppression = 1;  // suppress what violates
        else fail(ErrorKind::Internal, "unknown constraint " + quote_value(c.constraint));
    }
    return relaxed;
}

namespace {

std::string value_text(const std::optional<double>& v) { return v ? number_text(*v) : std::string("none"); }

// "(c,3)-safety: MD_3 = 1, needs < 0.5"
std::string describe(const ConstraintCheck& c, const Constraints& q) {
    const std::string v = value_text(c.value), t = number_text(c.threshold);
    if (c.constraint == "k") return "k-anonymity: the smallest class has " + v + " rows, needs at least " + t;
    if (c.constraint == "l") return "l-diversity: l = " + v + ", needs at least " + t;
    if (c.constraint == "t") return "t-closeness: t = " + v + ", needs at most " + t;
    if (c.constraint == "delta") return "delta-disclosure: delta = " + v + ", needs below " + t;
    if (c.constraint == "c") {
        const std::string k = std::to_string(q.ck_k);
        return "(c," + k + ")-safety: MD_" + k + " = " + v + ", needs below c = " + t;
    }
    if (c.constraint == "max_risk") return "max_risk: " + v + ", needs at most " + t;
    if (c.constraint == "average_risk") return "average_risk: " + v + ", needs at most " + t;
    if (c.constraint == "max_suppression")
        return "suppression: a share of " + v + " of the rows lies in violating classes, at most " + t +
               " may be suppressed";
    return c.constraint;
}

std::string failed_list(const std::vector<ConstraintCheck>& checks, const Constraints& q) {
    std::string out;
    for (const ConstraintCheck& c : checks)
        if (!c.passed) out += (out.empty() ? "" : "; ") + describe(c, q);
    return out;
}

}  // namespace

std::string nothing_found_summary(const std::string& top_levels, const std::vector<ConstraintCheck>& at_top,
                                  const Constraints& q, const std::string& nearest_levels,
                                  const std::vector<ConstraintCheck>& nearest) {
    std::string out = "No node qualifies. Even the top node (" + top_levels +
                      ": every quasi-identifier at ⊥, or as it is when it has no hierarchy) fails " +
                      failed_list(at_top, q) + ".";
    if (q.monotone())
        out +=
            " These constraints are monotone, so every node fails them too: relax them, or choose other "
            "quasi-identifiers or another sensitive column.";
    out += " The nearest node (" + nearest_levels + ") fails " + failed_list(nearest, q) + ".";
    return out;
}

}  // namespace privrisk
