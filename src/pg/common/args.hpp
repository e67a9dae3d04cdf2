// Reading SQL arguments into C++ values, with errors that name the argument.
#pragma once

#include <initializer_list>
#include <optional>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "common/guard.hpp"

struct JsonbValue;  // utils/jsonb.h

namespace privrisk::pg {

// The bytes of a text argument (detoasted; valid for the call). NULL is an
// error naming `what`.
std::string_view text_arg_view(FunctionCallInfo fcinfo, int i, const char* what);
int int4_arg_value(FunctionCallInfo fcinfo, int i, const char* what);
std::vector<long> int4_array_arg_values(FunctionCallInfo fcinfo, int i, const char* what);
// A one-dimensional float8[] argument without NULL elements (NULL: an error naming `what`).
std::vector<double> float8_array_arg_values(FunctionCallInfo fcinfo, int i, const char* what);
// A one-dimensional boolean[] argument without NULL elements.
std::vector<bool> bool_array_arg_values(FunctionCallInfo fcinfo, int i, const char* what);
// A side × side float8[][] argument, row-major, without NULL elements.
std::vector<double> float8_matrix_arg_values(FunctionCallInfo fcinfo, int i, const char* what, int side);
// A text[] argument; NULL gives an empty vector, a NULL element is an error unless allow_nulls.
std::vector<std::optional<std::string>> text_array_arg_values(FunctionCallInfo fcinfo, int i, const char* what,
                                                              bool allow_nulls);

// One of a few named options, from a text argument (NULL: `fallback`): an error
// lists the names ("kind must be a, b or c, got "x"").
template <typename E>
E choice_arg(FunctionCallInfo fcinfo, int i, const char* what, const char* fallback,
             std::initializer_list<std::pair<const char*, E>> names);

// A view of a text datum (detoasting it when needed).
std::string_view text_view(Datum d);

// A view of a character(n) datum without its pad blanks: 'ab' stored as char(4)
// is the value 'ab', as PostgreSQL compares it.
std::string_view bpchar_view(Datum d);

// Looks up the output function of `type` into `output`, allocated in `context`.
void output_function(Oid type, FmgrInfo* output, MemoryContext context);

// A new text datum holding `s`.
Datum text_datum(std::string_view s);
// A jsonb datum parsed from `json` (the reports of audit, search and the measures).
Datum jsonb_datum(const std::string& json);

// How many arguments one aggregate call takes (PostgreSQL's FUNC_MAX_ARGS, 100, less
// one): columns read as the arguments of one call (a dictionary's mapped columns,
// tuple_tally) are at most this many.
constexpr std::size_t kMaxAggregateArguments = 99;

// What one key of a jsonb options object must hold. Numbers are checked in the
// double range PostgreSQL's float8 cast accepts, integers exactly.
struct OptionSpec {
    enum Kind { Integer, Number, String, Array, NumberArray } kind;
    const char* name;
    double lo = 0, hi = 0;                  // Integer, Number, NumberArray elements: the allowed range
    bool lo_open = false;                   // Number: lo itself excluded
    std::size_t max_elements = 0;           // Array, NumberArray: at most this many (0: no limit; past it 54000)
    bool non_empty = false;                 // String, Array, NumberArray: at least one character / element
    std::vector<const char*> choices = {};  // String: one of these, when given
};

// The specs of the bound keys for one use (profiles/bound_keys.hpp: a BoundUse
// bit): audit options, search constraints, profile keys or dictionary options;
// for audit options, the older names of ck_k and t_hierarchy too.
std::vector<OptionSpec> option_specs(unsigned use);

// Checks each key of `options` (a JSON object, else an error naming `argument`)
// that `specs` knows against its spec; `what` names a key in errors ("audit
// option", "constraint"). Unknown keys are left to the caller, which lists them.
void check_json_options(Datum options, const char* argument, const char* what, const std::vector<OptionSpec>& specs);
// Calls on_value(key, value) for each top-level key of a JSON object, in the
// object's order; false (and no call) when `options` is not an object.
bool for_each_json_value(Datum options, const std::function<void(const std::string&, const ::JsonbValue&)>& on_value);
// The top-level keys of a JSON object with their scalar values as text (a
// string's content, a number's digits, true/false), as ->> gives them; JSON
// null is left out (absent). Read once, after check_json_options.
std::map<std::string, std::string> json_option_texts(Datum options);
// The value at `path` in a jsonb (object keys; an array's index as its decimal
// text), as #> finds it; its text as #>> gives it (nullopt for JSON null).
struct JsonbAt {
    bool found = false;
    std::optional<std::string> text;
};
JsonbAt jsonb_text_at(Datum jsonb, const std::vector<std::string>& path);
// The JSON text of a jsonb value, for messages: cut short and quoted like quote_value.
std::string jsonb_value_text(Datum jsonb);
// The whole JSON text of a jsonb value.
std::string jsonb_text(Datum jsonb);

// The keys of a JSON object in its own order, JSON nulls included.
std::vector<std::string> json_keys(Datum options);
// Keys `specs` does not name, as one error ("unknown <what> 'a', 'b'") with `hint`.
void refuse_unknown(const std::vector<std::string>& keys, const std::vector<OptionSpec>& specs, const char* what,
                    const char* hint);

// Names of hierarchies and policies are keys users type: bounded and printable.
void check_object_name(const char* kind, std::string_view name);
void check_hierarchy_name(std::string_view name);

// The same for a value read elsewhere (an option of a jsonb argument).
template <typename E>
E choice_of(std::string_view value, const char* what, std::initializer_list<std::pair<const char*, E>> names) {
    std::string list;
    std::size_t j = 0;
    for (const auto& [name, choice] : names) {
        if (value == name) return choice;
        list += std::string(j == 0 ? "" : j + 1 == names.size() ? " or " : ", ") + name;
        ++j;
    }
    fail(ErrorKind::InvalidParameter, std::string(what) + " must be " + list + ", got " + quote_value(value));
}

template <typename E>
E choice_arg(FunctionCallInfo fcinfo, int i, const char* what, const char* fallback,
             std::initializer_list<std::pair<const char*, E>> names) {
    return choice_of(PG_ARGISNULL(i) ? std::string_view(fallback) : text_view(PG_GETARG_DATUM(i)), what, names);
}

}  // namespace privrisk::pg
