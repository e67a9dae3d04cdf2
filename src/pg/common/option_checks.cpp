// The jsonb options of audit() and the constraints of search() and lattice(),
// checked whole before anything runs: the plpgsql wrappers cast them with
// PostgreSQL's casts, whose errors name neither the option nor the range.
// The ranges here are those the C++ functions behind the wrappers enforce.
#include <algorithm>

#include "common/args.hpp"
#include "common/error.hpp"
#include "profiles/bound_keys.hpp"

extern "C" {
#include "utils/jsonb.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace {

bool has_key(Datum options, const char* key) {
    return pg_call([&] { return DatumGetBool(DirectFunctionCall2(jsonb_exists, options, CStringGetTextDatum(key))); });
}

// mapping, leaf_weights and sensitivity_family describe a dictionary: alone they would be ignored.
void check_dictionary_keys(Datum options, const char* what) {
    if (has_key(options, "dictionary")) return;
    for (const char* key : {"mapping", "leaf_weights", "sensitivity_family"})
        if (has_key(options, key))
            fail(ErrorKind::InvalidParameter,
                 std::string(what) + " " + key + " describes a dictionary: give \"dictionary\" too");
}

}  // namespace

namespace privrisk::pg {

std::vector<OptionSpec> option_specs(unsigned use) {
    std::vector<OptionSpec> specs;
    for (const BoundKey& b : bound_keys()) {
        if (!(b.uses & use)) continue;
        OptionSpec s{OptionSpec::Integer, b.name, b.lo, b.hi, b.lo_open};
        switch (b.kind) {
            case BoundKey::Integer:
                break;
            case BoundKey::Number:
                s.kind = OptionSpec::Number;
                break;
            case BoundKey::Text:
                s.kind = OptionSpec::String;
                s.non_empty = true;
                s.choices = b.choices;
                break;
            case BoundKey::TextArray:
            case BoundKey::NumberArray:
                // The mapped columns are read as one aggregate call's arguments (dtrisk/dictionary.hpp).
                s.kind = b.kind == BoundKey::TextArray ? OptionSpec::Array : OptionSpec::NumberArray;
                s.max_elements = kMaxAggregateArguments;
                s.non_empty = true;
                break;
        }
        specs.push_back(s);
        if (b.alias && (use & kAuditOption)) {
            s.name = b.alias;
            specs.push_back(s);
        }
    }
    return specs;
}

// The keys of a JSON object in its own order (jsonb_object_keys'), JSON nulls included.
std::vector<std::string> json_keys(Datum options) {
    std::vector<std::string> keys;
    for_each_json_value(options, [&](const std::string& key, const JsonbValue&) { keys.push_back(key); });
    return keys;
}

// A key as quote_literal writes it, for the list of unknown keys.
static std::string literal(const std::string& key) {
    std::string out = key.find('\\') == std::string::npos ? "'" : "E'";
    for (char ch : key) {
        if (ch == '\'' || ch == '\\') out += ch;
        out += ch;
    }
    return out + "'";
}

// Keys no spec names, as one error with the known ones in its hint.
void refuse_unknown(const std::vector<std::string>& keys, const std::vector<OptionSpec>& specs, const char* what,
                    const char* hint) {
    std::string unknown;
    for (const std::string& k : keys) {
        bool found = false;
        for (const OptionSpec& s : specs) found = found || k == s.name;
        if (!found) unknown += (unknown.empty() ? "" : ", ") + literal(k);
    }
    if (unknown.empty()) return;
    std::string message = std::string("unknown ") + what + " " + unknown;
    pg_call([&] {
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE), errmsg("%s", message.c_str()), errhint("%s", hint)));
    });
}

}  // namespace privrisk::pg

namespace {

// The checks between keys of search's constraints, after each key's own.
void check_search_keys(Datum options, const std::vector<OptionSpec>& specs) {
    std::vector<std::string> keys = json_keys(options);
    auto has = [&](const char* key) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
    if (has("dt_risk"))
        pg_call([] {
            ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                            errmsg("dt_risk is not a search constraint: give a \"dictionary\" to have the result's "
                                   "dt_risk reported")));
        });
    refuse_unknown(keys, specs, "constraint(s)",
                   "known constraints: k, l (l_kind, l_c), t (t_kind, t_hierarchy), delta, c with ck_k, max_risk, "
                   "average_risk, max_suppression; and dictionary (mapping, leaf_weights, sensitivity_family) to "
                   "report the result's dt_risk");
    if (has("c") != has("ck_k"))
        fail(ErrorKind::InvalidParameter,
             "constraint c needs ck_k (the number of implications the attacker knows), and ck_k needs c");
    if (((has("l_kind") || has("l_c")) && !has("l")) || ((has("t_kind") || has("t_hierarchy")) && !has("t")))
        fail(ErrorKind::InvalidParameter,
             "l_kind and l_c qualify constraint l, t_kind and t_hierarchy constraint t: give l or t too");
}

}  // namespace

// check_options(kind, options): 'audit' options, 'search' constraints, or
// 'dictionary' options alone (dictionary_options): the type and range of each
// known key and, for audit and search, unknown keys and keys that need others.
// The one place these are checked; the SQL wrappers only call it.
PRIVRISK_FUNCTION(privrisk_check_options) {
    std::string_view kind = text_arg_view(fcinfo, 0, "kind");
    const char* argument;
    const char* what;
    unsigned use;
    if (kind == "audit") {
        if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "options must be a JSON object, got NULL");
        argument = "options";
        what = "audit option";
        use = kAuditOption;
    } else if (kind == "search") {
        if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "constraints must be a JSON object, got NULL");
        argument = "constraints";
        what = "constraint";
        use = kSearchConstraint;
    } else if (kind == "dictionary") {
        if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "options must be a JSON object, got NULL");
        argument = "options";
        what = "option";
        use = kDictionaryOption;
    } else {
        fail(ErrorKind::InvalidParameter, "kind must be audit, search or dictionary, got " + quote_value(kind));
    }
    const std::vector<OptionSpec> specs = option_specs(use);
    Datum options = PG_GETARG_DATUM(1);
    check_json_options(options, argument, what, specs);
    check_dictionary_keys(options, what);
    if (kind == "search") check_search_keys(options, specs);
    if (kind == "audit") {
        refuse_unknown(json_keys(options), specs, "audit option(s)",
                       "known options: risk_threshold, l_c, t_hierarchy (or sensitive_hierarchy), ck_k (or kmax), "
                       "target, classifier, dictionary (mapping, leaf_weights, sensitivity_family)");
        // An older name with the new one (a profile's ck_k beside the caller's kmax): one value.
        const std::map<std::string, std::string> texts = json_option_texts(options);
        for (const BoundKey& b : bound_keys()) {
            if (!b.alias || !texts.count(b.name) || !texts.count(b.alias) || texts.at(b.name) == texts.at(b.alias))
                continue;
            fail(ErrorKind::InvalidParameter, std::string("audit options ") + b.alias + " (" + texts.at(b.alias) +
                                                  ") and " + b.name + " (" + texts.at(b.name) + ") differ: " + b.alias +
                                                  " is the older name of " + b.name + ", give one value");
        }
    }
    PG_RETURN_VOID();
}
