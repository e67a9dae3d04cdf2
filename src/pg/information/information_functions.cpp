// Channel metrics on an explicit matrix and the k-anonymity channel of a tiny
// universe (docs/information.md; [ASB12]). The entropy aggregates are in
// entropy_aggregates.cpp.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/args.hpp"
#include "common/error.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "information/information.hpp"
#include "common/json_text.hpp"
#include "common/spi.hpp"

using namespace privrisk;
using namespace privrisk::pg;

// ---- channels ---------------------------------------------------------------

namespace {

std::vector<double> float8_values(Datum d, const char* what, int* ndim_out, int* dims_out) {
    Datum* items;
    bool* nulls;
    int n, ndim;
    int dims[MAXDIM];
    pg_call([&] {
        ArrayType* a = DatumGetArrayTypeP(d);
        ndim = ARR_NDIM(a);
        for (int i = 0; i < ndim; ++i) dims[i] = ARR_DIMS(a)[i];
        deconstruct_array(a, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &items, &nulls, &n);
    });
    std::vector<double> v;
    for (int i = 0; i < n; ++i) {
        if (nulls[i])
            fail(ErrorKind::InvalidParameter,
                 std::string(what) + " must not contain NULL (element " + std::to_string(i + 1) + ")");
        v.push_back(DatumGetFloat8(items[i]));
    }
    *ndim_out = ndim;
    for (int i = 0; i < ndim && i < 2; ++i) dims_out[i] = dims[i];
    return v;
}

Channel channel_arg(FunctionCallInfo fcinfo) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "matrix must not be NULL");
    int ndim = 0, dims[2] = {0, 0};
    auto v = float8_values(PG_GETARG_DATUM(0), "matrix", &ndim, dims);
    if (ndim != 2)
        fail(ErrorKind::InvalidParameter,
             "matrix must be a two-dimensional array (rows = inputs, columns = outputs), got " + std::to_string(ndim) +
                 " dimension(s)");
    std::vector<std::vector<double>> rows(dims[0]);
    for (int i = 0; i < dims[0]; ++i)
        rows[i].assign(v.begin() + std::size_t(i) * dims[1], v.begin() + std::size_t(i + 1) * dims[1]);
    return Channel::from_rows(rows);
}

std::vector<double> prior_arg(FunctionCallInfo fcinfo, const Channel& c) {
    if (PG_NARGS() < 2 || PG_ARGISNULL(1)) return c.prior({});
    std::vector<double> v = float8_array_arg_values(fcinfo, 1, "prior");
    if (v.empty()) fail(ErrorKind::InvalidParameter, "prior must not be empty (NULL means uniform)");
    return c.prior(v);
}

std::string json_array(const std::vector<double>& v) {
    std::string s = "[";
    for (std::size_t i = 0; i < v.size(); ++i) s += (i ? ", " : "") + json_number(v[i]);
    return s + "]";
}

// One metric of the channel and prior given as arguments 0 and 1.
Datum channel_metric(FunctionCallInfo fcinfo, double ChannelMetrics::*metric) {
    Channel c = channel_arg(fcinfo);
    PG_RETURN_FLOAT8(channel_metrics(c, prior_arg(fcinfo, c)).*metric);
}

}  // namespace

PRIVRISK_FUNCTION(privrisk_channel_bayes_error) { return channel_metric(fcinfo, &ChannelMetrics::bayes_error); }
PRIVRISK_FUNCTION(privrisk_channel_conditional_entropy) {
    return channel_metric(fcinfo, &ChannelMetrics::conditional_entropy);
}
PRIVRISK_FUNCTION(privrisk_channel_mutual_information) {
    return channel_metric(fcinfo, &ChannelMetrics::mutual_information);
}
PRIVRISK_FUNCTION(privrisk_channel_error_bound) { return channel_metric(fcinfo, &ChannelMetrics::error_bound); }

// Everything about one channel and prior, with the four adversaries of §4.1.1.
PRIVRISK_FUNCTION(privrisk_channel_report) {
    Channel c = channel_arg(fcinfo);
    std::vector<double> prior = prior_arg(fcinfo, c);
    auto m = channel_metrics(c, prior);
    auto a = adversary_errors(c, prior);
    std::string guess = "[";
    for (std::size_t j = 0; j < m.guess.size(); ++j)
        guess += (j ? ", " : "") + (m.guess[j] ? std::to_string(*m.guess[j] + 1) : std::string("null"));
    guess += "]";
    std::string json = "{\"unit\": \"bits\", \"bayes_error\": " + json_number(m.bayes_error) +
                       ", \"input_entropy\": " + json_number(m.input_entropy) +
                       ", \"output_entropy\": " + json_number(m.output_entropy) +
                       ", \"conditional_entropy\": " + json_number(m.conditional_entropy) +
                       ", \"mutual_information\": " + json_number(m.mutual_information) +
                       ", \"error_bound\": " + json_number(m.error_bound) + ", \"map_guess\": " + guess +
                       ", \"adversaries\": {\"knows_neither\": " + json_number(a.neither) +
                       ", \"knows_prior\": " + json_number(a.prior_only) +
                       ", \"knows_mechanism\": " + json_number(a.mechanism_only) +
                       ", \"knows_both\": " + json_number(a.both) + "}}";
    return jsonb_datum(json);
}

PRIVRISK_FUNCTION(privrisk_channel_worst_case_prior) {
    Channel c = channel_arg(fcinfo);
    auto w = worst_case_prior(c);
    return jsonb_datum("{\"bayes_error\": " + json_number(w.bayes_error) + ", \"prior\": " + json_array(w.prior) + "}");
}

// k_anonymity_channel(quasi_identifiers text[] (tree hierarchies), other_domains int[], rows, k, mechanism)
PRIVRISK_FUNCTION(privrisk_k_anonymity_channel) {
    auto names = text_array_arg_values(fcinfo, 0, "quasi_identifiers", false);
    std::vector<long> others;
    if (!PG_ARGISNULL(1)) others = int4_array_arg_values(fcinfo, 1, "other_domains");
    int rows = int4_arg_value(fcinfo, 2, "rows"), k = int4_arg_value(fcinfo, 3, "k");
    KAnonymityMechanism kind = choice_arg<KAnonymityMechanism>(
        fcinfo, 4, "mechanism", "uniform",
        {{"uniform", KAnonymityMechanism::Uniform}, {"minimal", KAnonymityMechanism::Minimal}});
    if (names.empty()) fail(ErrorKind::InvalidParameter, "quasi_identifiers must name at least one hierarchy");
    std::vector<UniverseAttribute> attributes;
    Spi spi;
    for (const auto& name : names) {
        // The ground domain is the hierarchy's leaves (tree hierarchies list them).
        const Hierarchy& h = cached_hierarchy(*name);  // first: loading it runs its own query
        uint64 n = spi.run(
            "SELECT path[1] FROM privrisk.hierarchy_leaf WHERE hierarchy OPERATOR(pg_catalog.=) $1 ORDER BY line",
            {text_arg(*name)}, true);
        if (n == 0)
            fail(ErrorKind::InvalidParameter,
                 "hierarchy " + quote_value(*name) +
                     " lists no leaves; the universe needs a tree hierarchy (load_hierarchy)");
        UniverseAttribute a;
        a.name = *name;
        std::vector<std::string> leaves;
        for (uint64 i = 0; i < n; ++i) leaves.push_back(spi.string(i, 1));
        for (int level = 0; level <= h.height(); ++level) {
            std::unordered_map<std::string, uint32_t> ids;
            std::vector<uint32_t> ids_of(leaves.size());
            std::string scratch;
            for (std::size_t v = 0; v < leaves.size(); ++v) {
                Value g = h.generalize(leaves[v], level, scratch);
                std::string key = g ? std::string(*g) : std::string("\x01");
                ids_of[v] = ids.try_emplace(key, static_cast<uint32_t>(ids.size())).first->second;
            }
            a.levels.push_back(ids_of);
        }
        attributes.push_back(a);
    }
    spi.finish();
    for (std::size_t i = 0; i < others.size(); ++i) {
        if (others[i] < 1 || others[i] > 1000000)
            fail(ErrorKind::InvalidParameter, "other_domains element " + std::to_string(i + 1) + " is " +
                                                  std::to_string(others[i]) + "; a domain has 1 to 1,000,000 values");
        UniverseAttribute a;
        a.name = "other " + std::to_string(i + 1);
        a.quasi_identifier = false;
        std::vector<uint32_t> identity(static_cast<std::size_t>(others[i]));
        for (std::size_t v = 0; v < identity.size(); ++v) identity[v] = static_cast<uint32_t>(v);
        a.levels.push_back(identity);
        attributes.push_back(a);
    }
    auto u = k_anonymity_channel(attributes, rows, k, kind);
    std::string histogram;
    for (const auto& [x, count] : u.feasible_nodes)
        histogram += (histogram.empty() ? "" : ", ") + json_string(std::to_string(x)) + ": " + std::to_string(count);
    std::string json = "{\"unit\": \"bits\", \"inputs\": " + std::to_string(u.inputs) +
                       ", \"outputs\": " + std::to_string(u.outputs) +
                       ", \"bayes_error\": " + json_number(u.bayes_error) +
                       ", \"conditional_entropy\": " + json_number(u.conditional_entropy) +
                       ", \"error_bound\": " + json_number(u.error_bound) +
                       ", \"utility_degradation\": " + json_number(u.utility_degradation) + ", \"feasible_nodes\": {" +
                       histogram + "}}";
    return jsonb_datum(json);
}
