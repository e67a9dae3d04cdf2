// Optimal disclosure against a dictionary (docs/dtrisk.md; paper eq. 7–9, thesis
// ch. 4): per record, the generalization of its values that minimizes the
// decision-theoretic risk subject to a utility floor (or the other forms).
// Risk of a node = loss(Φ(y), |ρ(y, θ)|) with Φ from harmonic value weights;
// utility = Σ (steps left to ⊥). The dictionary is read once per call.
#include <cmath>
#include <string>
#include <vector>

#include "common/args.hpp"
#include "dtrisk/dictionary.hpp"
#include "common/error.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "common/json_text.hpp"
#include "dtrisk/optimal_disclosure.hpp"
#include "dtrisk/sensitivity.hpp"
#include "common/source_columns.hpp"
#include "common/spi.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

enum class Family { Linear, Multiplicative };

struct Setting {
    std::vector<MappedAttribute> mapping;
    std::vector<const Hierarchy*> hierarchies;
    mutable HierarchyPins pins;  // of `hierarchies`, checked as the tables are read
    std::vector<double> leaf_weights;
    DisclosureMethod method;
    DisclosureProblem problem;
    double bound, lambda;
    Family family;
    uint64_t seed;
};

// Arguments from index `first` on: leaf_weights, bound, method, problem, lambda, family, seed.
Setting read_setting(FunctionCallInfo fcinfo, int mapping_arg, int first) {
    Setting s;
    if (PG_ARGISNULL(mapping_arg)) fail(ErrorKind::InvalidParameter, "mapping must not be NULL");
    s.mapping = parse_mapping(PG_GETARG_DATUM(mapping_arg));
    s.hierarchies = mapping_hierarchies(s.mapping, s.pins);
    s.leaf_weights = float8_array_arg_values(fcinfo, first, "leaf_weights");
    if (s.leaf_weights.size() != s.mapping.size())
        fail(ErrorKind::InvalidParameter, "leaf_weights must have one entry per mapped attribute (" +
                                              std::to_string(s.mapping.size()) + "), got " +
                                              std::to_string(s.leaf_weights.size()));
    for (std::size_t j = 0; j < s.leaf_weights.size(); ++j)
        check_weight(s.leaf_weights[j], "leaf weight of " + quote_value(s.mapping[j].released));
    s.method = choice_arg<DisclosureMethod>(fcinfo, first + 2, "method", "aruba",
                                            {{"exhaustive", DisclosureMethod::Exhaustive},
                                             {"btda", DisclosureMethod::Btda},
                                             {"aruba", DisclosureMethod::Aruba},
                                             {"genetic", DisclosureMethod::Genetic}});
    s.problem = choice_arg<DisclosureProblem>(fcinfo, first + 3, "problem", "min_risk",
                                              {{"min_risk", DisclosureProblem::MinRisk},
                                               {"max_utility", DisclosureProblem::MaxUtility},
                                               {"lagrangian", DisclosureProblem::Lagrangian}});
    if (s.problem != DisclosureProblem::Lagrangian && PG_ARGISNULL(first + 1))
        fail(ErrorKind::InvalidParameter,
             "bound must be given: the least utility (min_risk) or the largest risk (max_utility)");
    s.bound = PG_ARGISNULL(first + 1) ? 0 : PG_GETARG_FLOAT8(first + 1);
    if (std::isnan(s.bound)) fail(ErrorKind::InvalidParameter, "bound must be a number, got NaN");
    s.lambda = PG_ARGISNULL(first + 4) ? 0 : PG_GETARG_FLOAT8(first + 4);
    if (!(s.lambda >= 0) || !std::isfinite(s.lambda))
        fail(ErrorKind::InvalidParameter, "lambda must be >= 0 and finite, got " + number_text(s.lambda));
    s.family = choice_arg<Family>(fcinfo, first + 5, "family", "multiplicative",
                                  {{"linear", Family::Linear}, {"multiplicative", Family::Multiplicative}});
    s.seed = PG_ARGISNULL(first + 6) ? 1 : static_cast<uint64_t>(PG_GETARG_INT64(first + 6));
    return s;
}

// Φ of a released record: harmonic value weights (the leaf weight for an
// attribute without hierarchy), ⊥ weighing 0, in the setting's family.
double released_phi(const Setting& s, const std::vector<Value>& y) {
    std::vector<double> w(y.size());
    std::vector<bool> disclosed(y.size());
    for (std::size_t j = 0; j < y.size(); ++j) {
        disclosed[j] = y[j].has_value();
        w[j] = !y[j]              ? 0
               : s.hierarchies[j] ? harmonic_weight(*s.hierarchies[j], y[j], s.leaf_weights[j])
                                  : s.leaf_weights[j];
    }
    return s.family == Family::Linear ? sensitivity_linear(w, disclosed) : sensitivity_multiplicative(w, disclosed);
}

struct Outcome {
    DisclosureResult result;
    bool exhaustive_fallback = false;                  // the record matched nothing: its risk is not monotone (A8)
    std::vector<std::optional<std::string>> released;  // owned: an Outcome is moved around
    double phi = 0;
    int64_t matches = 0;
};

// Searches one record's lattice; y(x) generalizes value j by x_j steps from its own level.
Outcome search_record(const Setting& s, MatchCounter& counter, const std::vector<Value>& record) {
    const std::size_t k = record.size();
    std::vector<int> own(k), heights(k);
    for (std::size_t j = 0; j < k; ++j) {
        own[j] = counter.level(j, record[j]);
        heights[j] = counter.height(j) - own[j];
    }
    Outcome out;
    auto released = [&](const std::vector<int>& x, std::vector<std::string>& scratch) {
        std::vector<Value> y(k);
        for (std::size_t j = 0; j < k; ++j) {
            const int level = own[j] + x[j];
            if (!record[j] || level >= counter.height(j)) continue;  // ⊥
            y[j] = s.hierarchies[j] ? s.hierarchies[j]->generalize(*record[j], level, scratch[j]) : record[j];
        }
        return y;
    };
    auto phi_of = [&](const std::vector<Value>& y) { return released_phi(s, y); };
    std::vector<std::string> scratch(k);
    DisclosureSearch search;
    search.heights = heights;
    search.risk = [&](const std::vector<int>& x) {
        std::vector<Value> y = released(x, scratch);
        return disclosure_loss(phi_of(y), counter.count_one(y));
    };
    search.utility = [&](const std::vector<int>& x) {
        double u = 0;
        for (std::size_t j = 0; j < k; ++j) u += heights[j] - x[j];
        return u;
    };
    search.problem = s.problem;
    search.bound = s.bound;
    search.lambda = s.lambda;
    search.seed = s.seed;
    // BTDA, ARUBA and the genetic search rely on the risk falling as the record is
    // generalized; it does when the record itself matches an entry (|ρ| can only
    // grow, Φ only fall), not when it matches none ([LSFB09]).
    DisclosureMethod method = s.method;
    if (method != DisclosureMethod::Exhaustive && counter.count_one(record) == 0) {
        method = DisclosureMethod::Exhaustive;
        out.exhaustive_fallback = true;
    }
    out.result = optimal_disclosure(search, method);
    if (out.result.found) {
        std::vector<Value> y = released(out.result.levels, scratch);
        out.phi = phi_of(y);
        out.matches = counter.count_one(y);
        for (const Value& v : y) out.released.push_back(v ? std::optional<std::string>(std::string(*v)) : std::nullopt);
    }
    return out;
}

std::string outcome_json(const Outcome& o, const Setting& s) {
    std::string json = "{\"found\": " + std::string(o.result.found ? "true" : "false");
    if (o.result.found) {
        std::string levels, released;
        for (std::size_t j = 0; j < o.result.levels.size(); ++j) {
            levels += (j ? ", " : "") + std::to_string(o.result.levels[j]);
            released += (j ? ", " : "") + (o.released[j] ? json_string(*o.released[j]) : std::string("null"));
        }
        json += ", \"levels\": [" + levels + "], \"released\": [" + released +
                "], \"risk\": " + json_number(o.result.risk) + ", \"utility\": " + json_number(o.result.utility) +
                ", \"phi\": " + json_number(o.phi) + ", \"matches\": " + std::to_string(o.matches);
    }
    static const char* const names[] = {"exhaustive", "btda", "aruba", "genetic"};
    json += ", \"visited\": " + std::to_string(o.result.visited) + ", \"method\": " +
            json_string(names[static_cast<int>(o.exhaustive_fallback ? DisclosureMethod::Exhaustive : s.method)]);
    if (o.exhaustive_fallback)
        json +=
            ", \"note\": \"the record matches no dictionary entry, so its risk is not monotone: searched "
            "exhaustively\"";
    return json + "}";
}

// Reads the dictionary (argument 1) and the source's distinct tuples (argument 0)
// into `counter`; the source's columns are the mapping's released names.
SourceRelation read_source_and_dictionary(FunctionCallInfo fcinfo, const Setting& s, MatchCounter& counter) {
    SourceRelation source = source_relation(PG_GETARG_OID(0));
    std::vector<SourceColumn> columns;
    for (const auto& a : s.mapping) columns.push_back(source_column(source, a.released, "source"));
    load_dictionary(PG_GETARG_OID(1), s.mapping, counter, s.pins);
    load_released(source, columns, counter, [&](std::size_t j, std::optional<std::string_view> t) {
        return mapped_code(counter, s.mapping, "source", j, t, s.pins);
    });
    return source;
}

}  // namespace

// optimal_disclosure(record text[], dictionary, mapping, leaf_weights, bound, method, problem,
//                    lambda, family, seed) -> jsonb
PRIVRISK_FUNCTION(privrisk_optimal_disclosure) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "record and dictionary must not be NULL");
    auto record_text = text_array_arg_values(fcinfo, 0, "record", true);
    Setting s = read_setting(fcinfo, 2, 3);
    if (record_text.size() != s.mapping.size())
        fail(ErrorKind::InvalidParameter, "record must have one value per mapped attribute (" +
                                              std::to_string(s.mapping.size()) + "), got " +
                                              std::to_string(record_text.size()));
    MatchCounter counter(s.hierarchies);
    load_dictionary(PG_GETARG_OID(1), s.mapping, counter, s.pins);
    std::vector<Value> record;
    for (std::size_t j = 0; j < record_text.size(); ++j) {
        record.push_back(record_text[j] ? Value(*record_text[j]) : Value());
        mapped_code(counter, s.mapping, "record", j, record.back(), s.pins);  // checks the value
    }
    return jsonb_datum(outcome_json(search_record(s, counter, record), s));
}

// optimal_disclosures(source, dictionary, mapping, leaf_weights, bound, method, problem, lambda,
//                     family, seed) -> TABLE(source_values, rows, levels, released_values, risk,
//                     utility, visited): every distinct source tuple's optimal disclosure.
PRIVRISK_FUNCTION(privrisk_optimal_disclosures) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "source and dictionary must not be NULL");
    Setting s = read_setting(fcinfo, 2, 3);
    MatchCounter counter(s.hierarchies);
    SourceRelation source = read_source_and_dictionary(fcinfo, s, counter);
    const std::size_t tuples = counter.released();
    pg_call([&] { InitMaterializedSRF(fcinfo, 0); });
    auto* rsi = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    MemoryContext row_context = pg_call([] {
        return AllocSetContextCreate(CurrentMemoryContext, "privrisk optimal_disclosures rows", ALLOCSET_DEFAULT_SIZES);
    });
    for (uint32_t id = 0; id < tuples; ++id) {
        std::vector<Value> record = counter.released_values(id);
        Outcome o = search_record(s, counter, record);
        std::vector<std::optional<std::string_view>> source_items(record.begin(), record.end());
        std::vector<std::optional<std::string_view>> released_items;
        for (const auto& v : o.released)
            released_items.push_back(v ? std::optional<std::string_view>(*v) : std::nullopt);
        std::vector<int> levels = o.result.levels;
        const int64_t rows = counter.released_rows(id), visited = o.result.visited;
        const bool found = o.result.found;
        const double risk = o.result.risk, utility = o.result.utility;
        MemoryContext old = pg_call([&] { return MemoryContextSwitchTo(row_context); });
        SpiArg source_array = text_array_arg(source_items);
        SpiArg released_array = text_array_arg(released_items);
        SpiArg levels_array = int4_array_arg(levels);
        pg_call([&] {
            MemoryContextSwitchTo(old);
            Datum out[7] = {source_array.value,   Int64GetDatum(rows),     levels_array.value,    released_array.value,
                            Float8GetDatum(risk), Float8GetDatum(utility), Int64GetDatum(visited)};
            bool nulls[7] = {false, false, !found, !found, !found, !found, false};
            tuplestore_putvalues(rsi->setResult, rsi->setDesc, out, nulls);
            MemoryContextReset(row_context);
            CHECK_FOR_INTERRUPTS();
        });
    }
    return Datum(0);
}

// optimal_generalization(source, dictionary, mapping, leaf_weights, bound, method, problem, lambda,
//                        family, seed) -> jsonb: the table-level, full-domain form ([LSFB09]; decision J):
// one level vector for every row; risk = the mean loss over the rows of the release at
// that node, utility = the mean steps left to ⊥. The result has search()'s shape, so
// apply_generalization() publishes it through the release scan.
PRIVRISK_FUNCTION(privrisk_optimal_generalization) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "source and dictionary must not be NULL");
    Setting s = read_setting(fcinfo, 2, 3);
    MatchCounter counter(s.hierarchies);
    SourceRelation source = read_source_and_dictionary(fcinfo, s, counter);
    int64_t rows = 0;
    for (uint32_t id = 0; id < counter.released(); ++id) rows += counter.released_rows(id);
    if (rows == 0)
        fail(ErrorKind::InvalidParameter, "source " + quote_value(source.name) + " has no rows to generalize");
    const std::size_t k = s.mapping.size(), tuples = counter.released();
    std::vector<std::vector<Value>> records(tuples);
    for (uint32_t id = 0; id < tuples; ++id) records[id] = counter.released_values(id);
    DisclosureSearch search;
    for (std::size_t j = 0; j < k; ++j) search.heights.push_back(counter.height(j));
    std::vector<std::string> scratch(k);
    // The release at node x: each value generalized to level x_j (a value already
    // above it stays as it is).
    search.risk = [&](const std::vector<int>& x) {  // the mean loss over the rows
        long double loss = 0;
        for (uint32_t id = 0; id < tuples; ++id) {
            std::vector<Value> y(k);
            for (std::size_t j = 0; j < k; ++j) {
                const Value& v = records[id][j];
                const int level = std::max(x[j], counter.level(j, v));
                if (v && level < counter.height(j))
                    y[j] = s.hierarchies[j] ? s.hierarchies[j]->generalize(*v, level, scratch[j]) : v;
            }
            loss += static_cast<long double>(disclosure_loss(released_phi(s, y), counter.count_one(y))) *
                    counter.released_rows(id);
        }
        pg_call([] { CHECK_FOR_INTERRUPTS(); });
        return static_cast<double>(loss / rows);
    };
    search.utility = [&](const std::vector<int>& x) {  // the mean steps left to ⊥, row-weighted
        long double total = 0;
        for (uint32_t id = 0; id < tuples; ++id) {
            double per = 0;
            for (std::size_t j = 0; j < k; ++j)
                per += counter.height(j) - std::max(x[j], counter.level(j, records[id][j]));
            total += static_cast<long double>(per) * counter.released_rows(id);
        }
        return static_cast<double>(total / rows);
    };
    search.problem = s.problem;
    search.bound = s.bound;
    search.lambda = s.lambda;
    search.seed = s.seed;
    DisclosureMethod method = s.method;  // monotone only if every row matches an entry as it is (A8)
    for (uint32_t id = 0; id < tuples && method != DisclosureMethod::Exhaustive; ++id)
        if (counter.count_one(records[id]) == 0) method = DisclosureMethod::Exhaustive;
    DisclosureResult r = optimal_disclosure(search, method);
    std::string qi, hierarchies, node;
    for (std::size_t j = 0; j < k; ++j) {
        qi += (j ? ", " : "") + json_string(s.mapping[j].released);
        hierarchies +=
            (j ? ", " : "") + (s.mapping[j].hierarchy ? json_string(*s.mapping[j].hierarchy) : std::string("null"));
        if (r.found) node += (j ? ", " : "") + std::to_string(r.levels[j]);
    }
    static const char* const names[] = {"exhaustive", "btda", "aruba", "genetic"};
    std::string json = "{\"source\": " + json_string(source.qualified) + ", \"quasi_identifiers\": [" + qi +
                       "], \"hierarchies\": [" + hierarchies + "], \"found\": " + (r.found ? "true" : "false") +
                       ", \"rows\": " + std::to_string(rows);
    if (r.found)
        json += ", \"result\": {\"node\": [" + node + "], \"risk\": " + json_number(r.risk) +
                ", \"utility\": " + json_number(r.utility) + ", \"rows_suppressed\": 0}";
    json += ", \"search\": {\"method\": " + json_string(names[static_cast<int>(method)]) +
            ", \"visited\": " + std::to_string(r.visited) + "}}";
    return jsonb_datum(json);
}
