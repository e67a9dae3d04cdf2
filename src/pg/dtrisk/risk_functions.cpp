// Decision-theoretic risk (docs/dtrisk.md; [LSFB09]): sensitivity Φ, the loss,
// identification against a dictionary (match_counts, and the check of a mapping
// that audit() and search() run before they read) and the risk aggregates.
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "common/agg_state.hpp"
#include "common/args.hpp"
#include "dtrisk/dictionary.hpp"
#include "common/error.hpp"
#include "common/exact_sum.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "dtrisk/identification.hpp"
#include "dtrisk/independence.hpp"
#include "common/json_text.hpp"
#include "dtrisk/sensitivity.hpp"
#include "common/source_columns.hpp"
#include "common/spi.hpp"

extern "C" {
#include "utils/jsonb.h"
}

using namespace privrisk;
using namespace privrisk::pg;

// sensitivity_linear(weights float8[], disclosed boolean[])
PRIVRISK_FUNCTION(privrisk_sensitivity_linear) {
    return Float8GetDatum(sensitivity_linear(float8_array_arg_values(fcinfo, 0, "weights"),
                                             bool_array_arg_values(fcinfo, 1, "disclosed")));
}

// sensitivity_multiplicative(weights float8[], disclosed boolean[])
PRIVRISK_FUNCTION(privrisk_sensitivity_multiplicative) {
    return Float8GetDatum(sensitivity_multiplicative(float8_array_arg_values(fcinfo, 0, "weights"),
                                                     bool_array_arg_values(fcinfo, 1, "disclosed")));
}

// sensitivity_pairwise(weights float8[], pair_weights float8[][], disclosed boolean[])
PRIVRISK_FUNCTION(privrisk_sensitivity_pairwise) {
    auto weights = float8_array_arg_values(fcinfo, 0, "weights");
    auto pairs = float8_matrix_arg_values(fcinfo, 1, "pair_weights", static_cast<int>(weights.size()));
    return Float8GetDatum(sensitivity_pairwise(weights, pairs, bool_array_arg_values(fcinfo, 2, "disclosed")));
}

// harmonic_weight(hierarchy, node, leaf_weight): leaf_weight / leaves under node; ⊥ (NULL) 0.
PRIVRISK_FUNCTION(privrisk_harmonic_weight) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(2))
        fail(ErrorKind::InvalidParameter, "hierarchy and leaf_weight must not be NULL");
    const Hierarchy& h = hierarchy_for_call(fcinfo, PG_GETARG_TEXT_PP(0));
    Value node = PG_ARGISNULL(1) ? Value() : Value(text_view(PG_GETARG_DATUM(1)));
    return Float8GetDatum(harmonic_weight(h, node, PG_GETARG_FLOAT8(2)));
}

// sensitivity(values text[], hierarchies text[], leaf_weights float8[], family):
// Φ with harmonic value weights (the paper's §8 form); NULL values are ⊥.
PRIVRISK_FUNCTION(privrisk_sensitivity) {
    auto values = text_array_arg_values(fcinfo, 0, "values", true);
    auto hierarchies = text_array_arg_values(fcinfo, 1, "hierarchies", true);  // NULL: no hierarchy
    auto leaf = float8_array_arg_values(fcinfo, 2, "leaf_weights");
    enum class Family { Linear, Multiplicative };
    Family family = choice_arg<Family>(fcinfo, 3, "family", "multiplicative",
                                       {{"linear", Family::Linear}, {"multiplicative", Family::Multiplicative}});
    if (hierarchies.size() != values.size() || leaf.size() != values.size())
        fail(ErrorKind::InvalidParameter,
             "values, hierarchies and leaf_weights must have the same length, got " + std::to_string(values.size()) +
                 ", " + std::to_string(hierarchies.size()) + " and " + std::to_string(leaf.size()));
    std::vector<double> w;
    std::vector<bool> disclosed;
    for (std::size_t j = 0; j < values.size(); ++j) {
        Value v = values[j] ? Value(*values[j]) : Value();
        try {
            if (hierarchies[j]) {
                w.push_back(harmonic_weight(cached_hierarchy(*hierarchies[j]), v, leaf[j]));
            } else {  // released as is or suppressed: the leaf weight or nothing
                check_weight(leaf[j], "the leaf weight");
                w.push_back(v ? leaf[j] : 0);
            }
        } catch (const Error& e) {
            fail(e.kind(), "value " + std::to_string(j + 1) + ": " + e.what());
        }
        disclosed.push_back(v.has_value());
    }
    return Float8GetDatum(family == Family::Linear ? sensitivity_linear(w, disclosed)
                                                   : sensitivity_multiplicative(w, disclosed));
}

// loss(phi, matches, psi DEFAULT 0)
PRIVRISK_FUNCTION(privrisk_loss) {
    return Float8GetDatum(disclosure_loss(PG_GETARG_FLOAT8(0), PG_GETARG_INT64(1), PG_GETARG_FLOAT8(2)));
}

// ---------------------------------------------------------------------------
// Risk aggregates. The state (bytea) holds two exact sums, so a mean does not
// depend on row order or on the number of workers: dt_risk sums losses and
// rows, bayes_risk sums prior·risk and priors. Infinite terms are counted apart.
namespace {

using Sum = ExactSum<64>;
struct RiskState {
    Sum numerator, denominator;
    int64 rows;
    int64 infinite;  // terms that were +∞
};
constexpr double kMaxTerm = 0x1p62;

static_assert(sizeof(RiskState) == 48, "the size kRiskShape names");
constexpr const char* kRiskShape = "a risk aggregate state (a bytea of 48 bytes)";

// Checks a risk state made anywhere: its size, and counts a real state can hold
// (rows >= 0, 0 <= infinite terms <= rows). Returns an aligned copy: the state
// needs 16-byte alignment (its sums are 128-bit), a bytea's data has 4.
RiskState risk_state(bytea* b, const char* function) {
    if (VARSIZE(b) != VARHDRSZ + sizeof(RiskState))
        bad_state(function, kRiskShape, std::to_string(VARSIZE(b) - VARHDRSZ) + " bytes");
    RiskState s;
    std::memcpy(&s, VARDATA(b), sizeof s);
    if (s.rows < 0 || s.infinite < 0 || s.infinite > s.rows)
        bad_state(function, "row counts >= 0 with at most one infinite term per row",
                  std::to_string(s.rows) + " rows and " + std::to_string(s.infinite) + " infinite terms");
    return s;
}

// The state argument, worked on as an aligned copy and stored back by
// `datum()`: a new bytea for NULL; the aggregate's own to update in place, or,
// called any other way, a private copy (never the argument itself).
struct StateArg {
    bytea* bytes;
    RiskState value;
    Datum datum() {
        std::memcpy(VARDATA(bytes), &value, sizeof value);
        return PointerGetDatum(bytes);
    }
};

StateArg state_arg(FunctionCallInfo fcinfo, const char* function) {
    MemoryContext agg;
    const bool aggregate = AggCheckCallContext(fcinfo, &agg);
    if (PG_ARGISNULL(0)) {
        auto* b = static_cast<bytea*>(pg_call([&] {
            return aggregate ? MemoryContextAllocZero(agg, VARHDRSZ + sizeof(RiskState))
                             : palloc0(VARHDRSZ + sizeof(RiskState));
        }));
        SET_VARSIZE(b, VARHDRSZ + sizeof(RiskState));
        return StateArg{b, RiskState{}};
    }
    bytea* b =
        aggregate ? pg_call([&] { return PG_GETARG_BYTEA_P(0); }) : pg_call([&] { return PG_GETARG_BYTEA_P_COPY(0); });
    return StateArg{b, risk_state(b, function)};
}

void add_term(Sum& sum, int64* infinite, double term) {
    if (std::isinf(term)) {
        ++*infinite;
        return;
    }
    if (term >= kMaxTerm) fail(ErrorKind::ProgramLimit, "a risk term of " + number_text(term) + " is beyond 2^62");
    sum.add(term);
}

}  // namespace

// dt_risk_add(state, phi, matches [, rows]): NULL phi or matches rows are
// ignored; `rows` weighs a distinct released tuple by the rows that hold it.
PRIVRISK_FUNCTION(privrisk_dt_risk_add) {
    StateArg arg = state_arg(fcinfo, "dt_risk_add");
    RiskState* s = &arg.value;
    const bool weighted = PG_NARGS() > 3;
    if (!PG_ARGISNULL(1) && !PG_ARGISNULL(2) && !(weighted && PG_ARGISNULL(3))) {
        const int64 rows = weighted ? PG_GETARG_INT64(3) : 1;
        if (rows < 0) fail(ErrorKind::InvalidParameter, "rows must be >= 0, got " + std::to_string(rows));
        const double loss = disclosure_loss(PG_GETARG_FLOAT8(1), PG_GETARG_INT64(2));
        if (std::isinf(loss)) {
            s->infinite += rows > 0;
        } else if (rows > 0) {
            if (loss >= kMaxTerm) fail(ErrorKind::ProgramLimit, "a loss of " + number_text(loss) + " is beyond 2^62");
            s->numerator.add(loss, rows);
        }
        s->denominator.add(1, rows);
        s->rows += rows;
    }
    return arg.datum();
}

// bayes_risk_add(state, risk, prior): Σ q·R and Σ q ([LSFB09] F, E2).
PRIVRISK_FUNCTION(privrisk_bayes_risk_add) {
    StateArg arg = state_arg(fcinfo, "bayes_risk_add");
    RiskState* s = &arg.value;
    if (!PG_ARGISNULL(1) && !PG_ARGISNULL(2)) {
        const double risk = PG_GETARG_FLOAT8(1), prior = PG_GETARG_FLOAT8(2);
        check_weight(risk, "risk");
        check_weight(prior, "prior");
        if (std::isinf(prior)) fail(ErrorKind::InvalidParameter, "a prior must be finite");
        if (prior > 0) add_term(s->numerator, &s->infinite, prior * risk);  // 0·∞ = 0
        add_term(s->denominator, &s->infinite, prior);
        ++s->rows;
    }
    return arg.datum();
}

PRIVRISK_FUNCTION(privrisk_risk_state_combine) {
    if (PG_ARGISNULL(0) && PG_ARGISNULL(1)) PG_RETURN_NULL();
    if (PG_ARGISNULL(0)) {
        risk_state(pg_call([&] { return PG_GETARG_BYTEA_P(1); }), "risk_state_combine");
        return PG_GETARG_DATUM(1);
    }
    StateArg arg = state_arg(fcinfo, "risk_state_combine");
    RiskState* s = &arg.value;
    if (!PG_ARGISNULL(1)) {
        RiskState t = risk_state(pg_call([&] { return PG_GETARG_BYTEA_P(1); }), "risk_state_combine");
        s->numerator.merge(t.numerator);
        s->denominator.merge(t.denominator);
        if (__builtin_add_overflow(s->rows, t.rows, &s->rows) ||
            __builtin_add_overflow(s->infinite, t.infinite, &s->infinite))
            fail(ErrorKind::ProgramLimit, "risk_state_combine: more than 2^63 - 1 rows");
    }
    return arg.datum();
}

// The mean: numerator / denominator; +∞ when any term was; NULL with no row.
PRIVRISK_FUNCTION(privrisk_risk_state_mean) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    RiskState s = risk_state(pg_call([&] { return PG_GETARG_BYTEA_P(0); }), "risk_state_mean");
    if (s.rows == 0) PG_RETURN_NULL();
    if (s.infinite > 0) return Float8GetDatum(INFINITY);
    const long double d = s.denominator.value();
    if (d == 0) PG_RETURN_NULL();  // every prior 0
    return Float8GetDatum(static_cast<double>(s.numerator.value() / d));
}

// dt_risk_max_add(state float8, phi, matches): the worst record's loss.
PRIVRISK_FUNCTION(privrisk_dt_risk_max_add) {
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        return PG_GETARG_DATUM(0);
    }
    double loss = disclosure_loss(PG_GETARG_FLOAT8(1), PG_GETARG_INT64(2));
    if (!PG_ARGISNULL(0)) loss = std::max(loss, PG_GETARG_FLOAT8(0));
    return Float8GetDatum(loss);
}

// ---------------------------------------------------------------------------
// match_counts(released, dictionary, mapping jsonb, mode, threshold)
//   -> TABLE(released text[], rows bigint, matches bigint)
PRIVRISK_FUNCTION(privrisk_match_counts) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
        fail(ErrorKind::InvalidParameter, "released, dictionary and mapping must not be NULL");
    const Oid released_id = PG_GETARG_OID(0), dictionary_id = PG_GETARG_OID(1);
    auto mode = choice_arg<MatchCounter::Mode>(
        fcinfo, 3, "mode", "exact", {{"exact", MatchCounter::Mode::Exact}, {"jaro", MatchCounter::Mode::Jaro}});
    const double threshold = PG_ARGISNULL(4) ? 0.8 : PG_GETARG_FLOAT8(4);
    auto mapping = parse_mapping(PG_GETARG_DATUM(2));
    std::vector<long> levels;                  // the release at this node: released values generalized first
    if (PG_NARGS() > 5 && !PG_ARGISNULL(5)) {  // an older catalog declares five arguments
        levels = int4_array_arg_values(fcinfo, 5, "levels");
        if (levels.size() != mapping.size())
            fail(ErrorKind::InvalidParameter, "levels must have one entry per mapped attribute (" +
                                                  std::to_string(mapping.size()) + "), got " +
                                                  std::to_string(levels.size()));
    }
    SourceRelation released = source_relation(released_id);
    std::vector<SourceColumn> released_columns;
    for (const auto& a : mapping) released_columns.push_back(source_column(released, a.released, "released"));
    HierarchyPins pins;
    auto hierarchies = mapping_hierarchies(mapping, pins);
    for (std::size_t j = 0; j < levels.size(); ++j) {
        const int height = hierarchies[j] ? hierarchies[j]->height() : 1;
        if (levels[j] < 0 || levels[j] > height)
            fail(ErrorKind::InvalidParameter, "level " + std::to_string(levels[j]) + " of " +
                                                  quote_value(mapping[j].released) + " is outside 0.." +
                                                  std::to_string(height));
    }
    MatchCounter counter(hierarchies, mode, threshold);
    load_dictionary(dictionary_id, mapping, counter, pins);
    std::string scratch;
    auto code_released = [&](std::size_t j, std::optional<std::string_view> t) {
        if (t && !levels.empty() && levels[j] > 0) {  // generalize the source value to the node's level
            const Hierarchy* h = hierarchies[j];
            if (!h || levels[j] >= h->height()) return mapped_code(counter, mapping, "released", j, std::nullopt, pins);
            try {
                if (h->level_of(*t) > levels[j])
                    fail(ErrorKind::InvalidParameter,
                         "value " + quote_value(*t) + " is above level " + std::to_string(levels[j]));
                Value g = h->generalize(*t, static_cast<int>(levels[j]), scratch);
                return mapped_code(counter, mapping, "released", j, g, pins);
            } catch (const Error& e) {
                fail(e.kind(), "released column " + quote_value(mapping[j].released) + ": " + e.what());
            }
        }
        return mapped_code(counter, mapping, "released", j, t, pins);
    };
    load_released(released, released_columns, counter, code_released);
    pg_call([] { CHECK_FOR_INTERRUPTS(); });
    std::vector<int64_t> counts = counter.count();

    pg_call([&] { InitMaterializedSRF(fcinfo, 0); });
    auto* rsi = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    MemoryContext row_context = pg_call([] {
        return AllocSetContextCreate(CurrentMemoryContext, "privrisk match_counts rows", ALLOCSET_DEFAULT_SIZES);
    });
    for (uint32_t id = 0; id < counts.size(); ++id) {
        std::vector<Value> values = counter.released_values(id);
        std::vector<std::optional<std::string_view>> items(values.begin(), values.end());
        MemoryContext old = pg_call([&] { return MemoryContextSwitchTo(row_context); });
        SpiArg array = text_array_arg(items);
        pg_call([&] { MemoryContextSwitchTo(old); });
        const int64_t rows = counter.released_rows(id), matches = counts[id];
        pg_call([&] {
            Datum out[3] = {array.value, Int64GetDatum(rows), Int64GetDatum(matches)};
            bool nulls[3] = {false, false, false};
            tuplestore_putvalues(rsi->setResult, rsi->setDesc, out, nulls);
            MemoryContextReset(row_context);
            if ((id & 4095) == 0) CHECK_FOR_INTERRUPTS();
        });
    }
    return Datum(0);
}

// match_count(released_values text[], dictionary, mapping, mode, threshold): |ρ| of one
// released record (the dictionary is read on every call: for a table, use match_counts).
PRIVRISK_FUNCTION(privrisk_match_count) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || PG_ARGISNULL(2))
        fail(ErrorKind::InvalidParameter, "released_values, dictionary and mapping must not be NULL");
    auto values = text_array_arg_values(fcinfo, 0, "released_values", true);
    auto mode = choice_arg<MatchCounter::Mode>(
        fcinfo, 3, "mode", "exact", {{"exact", MatchCounter::Mode::Exact}, {"jaro", MatchCounter::Mode::Jaro}});
    const double threshold = PG_ARGISNULL(4) ? 0.8 : PG_GETARG_FLOAT8(4);
    auto mapping = parse_mapping(PG_GETARG_DATUM(2));
    if (values.size() != mapping.size())
        fail(ErrorKind::InvalidParameter, "released_values must have one value per mapped attribute (" +
                                              std::to_string(mapping.size()) + "), got " +
                                              std::to_string(values.size()));
    HierarchyPins pins;
    MatchCounter counter(mapping_hierarchies(mapping, pins), mode, threshold);
    load_dictionary(PG_GETARG_OID(1), mapping, counter, pins);
    std::vector<Value> y;
    for (std::size_t j = 0; j < values.size(); ++j) {
        y.push_back(values[j] ? Value(*values[j]) : Value());
        mapped_code(counter, mapping, "released", j, y.back(), pins);
    }
    return Int64GetDatum(counter.count_one(y));
}

// independent_top_k(weights, frequencies, dictionary_size, k) -> jsonb (paper §4.2)
PRIVRISK_FUNCTION(privrisk_independent_top_k) {
    if (PG_ARGISNULL(2) || PG_ARGISNULL(3)) fail(ErrorKind::InvalidParameter, "dictionary_size and k must not be NULL");
    IndependentChoice c = independent_top_k(float8_array_arg_values(fcinfo, 0, "weights"),
                                            float8_array_arg_values(fcinfo, 1, "frequencies"),
                                            double(PG_GETARG_INT64(2)), PG_GETARG_INT32(3));
    std::string disclosed, factors;
    for (std::size_t i = 0; i < c.disclosed.size(); ++i)
        disclosed += (i ? ", " : "") + std::to_string(c.disclosed[i] + 1);
    for (std::size_t i = 0; i < c.factors.size(); ++i)
        factors += (i ? ", " : "") + (std::isinf(c.factors[i]) ? std::string("null") : json_number(c.factors[i]));
    return jsonb_datum("{\"disclosed\": [" + disclosed + "], \"factors\": [" + factors +
                       "], \"loss\": " + json_number(c.loss) + "}");
}

// check_dictionary_mapping(mapping, leaf_weights jsonb): the mapping a dictionary
// option resolves to (given or the quasi-identifiers'), and one leaf weight per
// attribute, checked before the source is read.
PRIVRISK_FUNCTION(privrisk_check_dictionary_mapping) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "mapping must not be NULL");
    std::size_t width = parse_mapping(PG_GETARG_DATUM(0)).size();
    if (!PG_ARGISNULL(1)) {
        Datum weights = PG_GETARG_DATUM(1);
        std::size_t n = pg_call([&] { return static_cast<std::size_t>(JB_ROOT_COUNT(DatumGetJsonbP(weights))); });
        if (n != width)
            fail(ErrorKind::InvalidParameter, "leaf_weights must have one entry per mapped attribute (" +
                                                  std::to_string(width) + "), got " + std::to_string(n));
    }
    PG_RETURN_VOID();
}
