// The jsonb options of audit() and the constraints of search() and lattice(),
// checked whole before anything runs: the plpgsql wrappers cast them with
// PostgreSQL's casts, whose errors name neither the option nor the range.
// The ranges here are those the C++ functions behind the wrappers enforce.
#include <cmath>
#include <limits>

#include "common/args.hpp"
#include "ck/ck_safety.hpp"
#include "dtrisk/dictionary.hpp"
#include "common/error.hpp"

extern "C" {
#include "utils/jsonb.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

OptionSpec integer(const char* name, double lo, double hi) { return {OptionSpec::Integer, name, lo, hi}; }
OptionSpec number(const char* name, double lo, double hi, bool lo_open = false) {
    return {OptionSpec::Number, name, lo, hi, lo_open};
}
OptionSpec string(const char* name, std::vector<const char*> choices = {}) {
    return {OptionSpec::String, name, 0, 0, false, 0, true, std::move(choices)};
}

// The dictionary keys audit() and search() share (dictionary_options reads them).
void add_dictionary_specs(std::vector<OptionSpec>& specs) {
    specs.push_back(string("dictionary"));
    specs.push_back({OptionSpec::Array, "mapping", 0, 0, false, kMaxMappedAttributes, true});
    specs.push_back({OptionSpec::NumberArray, "leaf_weights", 0, kInf, false, kMaxMappedAttributes, true});
    specs.push_back(string("sensitivity_family", {"multiplicative", "linear"}));
}

bool has_key(Datum options, const char* key) {
    return pg_call([&] { return DatumGetBool(DirectFunctionCall2(jsonb_exists, options, CStringGetTextDatum(key))); });
}

// mapping, leaf_weights and sensitivity_family describe a dictionary: alone they would be ignored.
void check_dictionary_keys(Datum options, const char* what) {
    if (has_key(options, "dictionary")) return;
    for (const char* key : {"mapping", "leaf_weights", "sensitivity_family"})
        if (has_key(options, key))
            fail(ErrorKind::InvalidParameter, std::string(what) + " " + key + " describes a dictionary: give \"dictionary\" too");
}

}  // namespace

// check_options(kind, options): 'audit' options, 'search' constraints, or
// 'dictionary' options alone (dictionary_options). Unknown keys are the
// wrappers' to list; this checks the type and range of each known one.
PRIVRISK_FUNCTION(privrisk_check_options) {
    std::string_view kind = text_arg_view(fcinfo, 0, "kind");
    std::vector<OptionSpec> specs;
    const char* argument;
    const char* what;
    if (kind == "audit") {
        if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "options must be a JSON object, got NULL");
        argument = "options";
        what = "audit option";
        specs = {number("risk_threshold", 0, 1), number("l_c", 0, kInf, true), integer("kmax", 0, kMaxCkK),
                 string("sensitive_hierarchy"), string("target"), string("classifier", {"naive_bayes", "majority"})};
    } else if (kind == "search") {
        if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "constraints must be a JSON object, got NULL");
        argument = "constraints";
        what = "constraint";
        specs = {integer("k", 1, 9.3e18), number("l", 1, 1e9), string("l_kind", {"distinct", "entropy", "recursive"}),
                 number("l_c", 0, kInf, true), number("t", 0, 1),
                 string("t_kind", {"equal", "ordered", "hierarchical"}), string("t_hierarchy"),
                 number("delta", 0, 1e9, true), number("c", 0, 1, true), integer("ck_k", 0, kMaxCkK),
                 number("max_risk", 0, 1, true), number("average_risk", 0, 1, true), number("max_suppression", 0, 1)};
    } else if (kind == "dictionary") {
        if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "options must be a JSON object, got NULL");
        argument = "options";
        what = "option";
    } else {
        fail(ErrorKind::InvalidParameter, "kind must be audit, search or dictionary, got " + quote_value(kind));
    }
    add_dictionary_specs(specs);
    Datum options = PG_GETARG_DATUM(1);
    check_json_options(options, argument, what, specs);
    check_dictionary_keys(options, what);
    PG_RETURN_VOID();
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
