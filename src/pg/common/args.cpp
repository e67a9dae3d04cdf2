#include "common/args.hpp"

#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstdlib>

#include "common/error.hpp"

extern "C" {
#include "utils/jsonb.h"
#include "utils/numeric.h"
}

namespace privrisk::pg {

namespace {
[[noreturn]] void null_argument(const char* what) {
    fail(ErrorKind::InvalidParameter, std::string(what) + " must not be NULL");
}
}  // namespace

std::string_view text_view(Datum d) {
    auto* raw = reinterpret_cast<varlena*>(DatumGetPointer(d));
    // Inline values (short or long header) need no detoasting, hence no PostgreSQL call.
    if (!VARATT_IS_EXTERNAL(raw) && !VARATT_IS_COMPRESSED(raw))
        return std::string_view(VARDATA_ANY(raw), VARSIZE_ANY_EXHDR(raw));
    text* t = pg_call([&] { return DatumGetTextPP(d); });
    return std::string_view(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

std::string_view bpchar_view(Datum d) {
    std::string_view v = text_view(d);
    while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
    return v;
}

void output_function(Oid type, FmgrInfo* output, MemoryContext context) {
    pg_call([&] {
        Oid function;
        bool varlena;
        getTypeOutputInfo(type, &function, &varlena);
        fmgr_info_cxt(function, output, context);
    });
}

std::string_view text_arg_view(FunctionCallInfo fcinfo, int i, const char* what) {
    if (PG_ARGISNULL(i)) null_argument(what);
    return text_view(PG_GETARG_DATUM(i));
}

int int4_arg_value(FunctionCallInfo fcinfo, int i, const char* what) {
    if (PG_ARGISNULL(i)) null_argument(what);
    return PG_GETARG_INT32(i);
}

namespace {

// The elements of a one-dimensional array argument; a NULL element is an error
// naming `what` unless allow_nulls.
std::vector<std::optional<Datum>> array_elements(FunctionCallInfo fcinfo, int i, const char* what, Oid type, int16 len,
                                                 bool byval, char align, bool allow_nulls) {
    Datum d = PG_GETARG_DATUM(i);
    Datum* items;
    bool* nulls;
    int n, ndim;
    pg_call([&] {
        ArrayType* a = DatumGetArrayTypeP(d);
        ndim = ARR_NDIM(a);
        deconstruct_array(a, type, len, byval, align, &items, &nulls, &n);
    });
    if (ndim > 1) fail(ErrorKind::InvalidParameter, std::string(what) + " must be a one-dimensional array");
    std::vector<std::optional<Datum>> out;
    for (int k = 0; k < n; ++k) {
        if (nulls[k] && !allow_nulls)
            fail(ErrorKind::InvalidParameter,
                 std::string(what) + " must not contain NULL (element " + std::to_string(k + 1) + ")");
        out.push_back(nulls[k] ? std::nullopt : std::optional<Datum>(items[k]));
    }
    return out;
}

}  // namespace

std::vector<long> int4_array_arg_values(FunctionCallInfo fcinfo, int i, const char* what) {
    if (PG_ARGISNULL(i)) null_argument(what);
    std::vector<long> out;
    for (auto& e : array_elements(fcinfo, i, what, INT4OID, 4, true, TYPALIGN_INT, false))
        out.push_back(DatumGetInt32(*e));
    return out;
}

std::vector<bool> bool_array_arg_values(FunctionCallInfo fcinfo, int i, const char* what) {
    if (PG_ARGISNULL(i)) null_argument(what);
    std::vector<bool> out;
    for (auto& e : array_elements(fcinfo, i, what, BOOLOID, 1, true, TYPALIGN_CHAR, false))
        out.push_back(DatumGetBool(*e));
    return out;
}

std::vector<double> float8_matrix_arg_values(FunctionCallInfo fcinfo, int i, const char* what, int expected_side) {
    if (PG_ARGISNULL(i)) null_argument(what);
    Datum d = PG_GETARG_DATUM(i);
    Datum* items;
    bool* nulls;
    int n, ndim, rows = 0, cols = 0;
    pg_call([&] {
        ArrayType* a = DatumGetArrayTypeP(d);
        ndim = ARR_NDIM(a);
        if (ndim == 2) {
            rows = ARR_DIMS(a)[0];
            cols = ARR_DIMS(a)[1];
        }
        deconstruct_array(a, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &items, &nulls, &n);
    });
    if (ndim != 2 || rows != expected_side || cols != expected_side)
        fail(ErrorKind::InvalidParameter, std::string(what) + " must be a " + std::to_string(expected_side) + " x " +
                                              std::to_string(expected_side) + " matrix");
    std::vector<double> out;
    for (int k = 0; k < n; ++k) {
        if (nulls[k]) fail(ErrorKind::InvalidParameter, std::string(what) + " must not contain NULL");
        out.push_back(DatumGetFloat8(items[k]));
    }
    return out;
}

std::vector<double> float8_array_arg_values(FunctionCallInfo fcinfo, int i, const char* what) {
    if (PG_ARGISNULL(i)) null_argument(what);
    std::vector<double> out;
    for (auto& e : array_elements(fcinfo, i, what, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, false))
        out.push_back(DatumGetFloat8(*e));
    return out;
}

std::vector<std::optional<std::string>> text_array_arg_values(FunctionCallInfo fcinfo, int i, const char* what,
                                                              bool allow_nulls) {
    std::vector<std::optional<std::string>> out;
    if (PG_ARGISNULL(i)) return out;
    for (auto& e : array_elements(fcinfo, i, what, TEXTOID, -1, false, TYPALIGN_INT, allow_nulls))
        out.push_back(e ? std::optional<std::string>(std::string(text_view(*e))) : std::nullopt);
    return out;
}

Datum text_datum(std::string_view s) {
    const char* p = s.data();
    int n = static_cast<int>(s.size());
    return pg_call([&] { return PointerGetDatum(cstring_to_text_with_len(p, n)); });
}

Datum jsonb_datum(const std::string& json) {
    const char* text = json.c_str();
    return pg_call([&] { return DirectFunctionCall1(jsonb_in, CStringGetDatum(text)); });
}

namespace {

// JSON text for a message: cut at a readable length (never inside a UTF-8
// sequence). jsonb's output escapes control characters already.
std::string cut_json(std::string_view s) {
    constexpr std::size_t kShown = 60;
    if (s.size() <= kShown) return std::string(s);
    std::size_t cut = kShown;
    while (cut > 0 && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    return std::string(s.substr(0, cut)) + "...";
}

// A numeric's text; a long one (1e400 has 401 digits) in scientific notation.
std::string numeric_text(Numeric n, bool shortened) {
    std::string t = pg_call([&] { return DatumGetCString(DirectFunctionCall1(numeric_out, NumericGetDatum(n))); });
    if (shortened && t.size() > 24) {
        t = pg_call([&] { return numeric_out_sci(n, 6); });  // 1.000000e+400: drop the mantissa's trailing zeros
        std::size_t e = t.find('e');
        std::size_t last = t.find_last_not_of('0', e - 1);
        if (e != std::string::npos && last != std::string::npos)
            t.erase(t[last] == '.' ? last : last + 1, e - (t[last] == '.' ? last : last + 1));
    }
    return t;
}

// What a jsonb value is, as a message shows it: its JSON text.
std::string shown(const JsonbValue& v) {
    switch (v.type) {
        case jbvNull:
            return "null";
        case jbvBool:
            return v.val.boolean ? "true" : "false";
        case jbvNumeric:
            return numeric_text(v.val.numeric, true);
        case jbvString:
            return quote_value(std::string_view(v.val.string.val, v.val.string.len));
        case jbvBinary: {
            JsonbContainer* c = v.val.binary.data;
            int len = v.val.binary.len;
            return cut_json(pg_call([&] { return JsonbToCString(nullptr, c, len); }));
        }
        default:
            return "a JSON value";
    }
}

std::string bound_text(double v, bool integer) {
    return integer ? std::to_string(static_cast<long long>(v)) : number_text(v);
}

// "between 0 and 200", "at least 1", "in (0, 1]", "greater than 0".
std::string range_text(const OptionSpec& s) {
    const bool integer = s.kind == OptionSpec::Integer;
    const bool unbounded = integer ? s.hi >= 9.2e18 : std::isinf(s.hi);
    if (unbounded) return (s.lo_open ? "greater than " : "at least ") + bound_text(s.lo, integer);
    if (integer) return "between " + bound_text(s.lo, true) + " and " + bound_text(s.hi, true);
    return std::string("in ") + (s.lo_open ? "(" : "[") + number_text(s.lo) + ", " + number_text(s.hi) + "]";
}

// A number of the spec's kind and range; `label` names it ("constraint k", "audit option leaf_weights element 2").
void check_number(const OptionSpec& s, const std::string& label, const JsonbValue& v) {
    const bool integer = s.kind == OptionSpec::Integer;
    const std::string type = integer ? "an integer " : "a number ";
    std::string range = range_text(s);
    const std::string typed = type + (range.compare(0, 8, "at least") == 0 ? "of " : "") + range;
    if (v.type != jbvNumeric) fail(ErrorKind::InvalidParameter, label + " must be " + typed + ", got " + shown(v));
    const std::string text = numeric_text(v.val.numeric, false);
    bool in_range;
    if (integer) {
        long long x = 0;
        auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), x);
        if (ec == std::errc::invalid_argument || end != text.data() + text.size())  // a fraction: 2.5, also 2.0
            fail(ErrorKind::InvalidParameter, label + " must be " + typed + ", got " + shown(v));
        if (ec == std::errc::result_out_of_range && s.hi >= 9.2e18)
            fail(ErrorKind::InvalidParameter,
                 label + " must be " + typed + ", got " + shown(v) + ", beyond 64-bit integers");
        if (ec == std::errc::result_out_of_range)
            fail(ErrorKind::InvalidParameter, label + " must be " + range + ", got " + shown(v));
        in_range = x >= static_cast<long long>(s.lo) && (s.hi >= 9.2e18 || x <= static_cast<long long>(s.hi));
    } else {
        errno = 0;
        double x = std::strtod(text.c_str(), nullptr);
        // float8 rejects what overflows, and what underflows to 0, as out of range
        if (errno == ERANGE && (x == 0 || std::isinf(x)))
            fail(ErrorKind::InvalidParameter,
                 label + " must be " + typed + ", got " + shown(v) + ", beyond double precision");
        in_range = x >= s.lo && x <= s.hi && !(s.lo_open && x == s.lo);
    }
    if (!in_range) fail(ErrorKind::InvalidParameter, label + " must be " + range + ", got " + shown(v));
}

void check_option(const OptionSpec& s, const std::string& label, const JsonbValue& v) {
    switch (s.kind) {
        case OptionSpec::Integer:
        case OptionSpec::Number:
            check_number(s, label, v);
            return;
        case OptionSpec::String:
            if (v.type != jbvString) fail(ErrorKind::InvalidParameter, label + " must be a string, got " + shown(v));
            if (s.non_empty && v.val.string.len == 0) fail(ErrorKind::InvalidParameter, label + " must not be empty");
            if (!s.choices.empty()) {
                std::string_view value(v.val.string.val, v.val.string.len);
                std::string names;
                for (std::size_t j = 0; j < s.choices.size(); ++j) {
                    if (value == s.choices[j]) return;
                    names += std::string(j == 0 ? "" : j + 1 == s.choices.size() ? " or " : ", ") + s.choices[j];
                }
                fail(ErrorKind::InvalidParameter, label + " must be " + names + ", got " + shown(v));
            }
            return;
        case OptionSpec::Array:
        case OptionSpec::NumberArray: {
            const char* type =
                s.kind == OptionSpec::Array ? " must be a JSON array" : " must be a JSON array of numbers";
            if (v.type != jbvBinary || !JsonContainerIsArray(v.val.binary.data))
                fail(ErrorKind::InvalidParameter, label + type + ", got " + shown(v));
            JsonbContainer* c = v.val.binary.data;
            const std::size_t n = JsonContainerSize(c);
            if (s.non_empty && n == 0) fail(ErrorKind::InvalidParameter, label + " must not be empty");
            if (s.max_elements && n > s.max_elements)
                fail(ErrorKind::ProgramLimit,
                     label + " has " + std::to_string(n) + " elements; the limit is " + std::to_string(s.max_elements));
            if (s.kind != OptionSpec::NumberArray) return;
            OptionSpec element = s;
            element.kind = OptionSpec::Number;
            JsonbIterator* it = pg_call([&] { return JsonbIteratorInit(c); });
            JsonbValue e;
            std::size_t i = 0;
            for (;;) {
                JsonbIteratorToken t = pg_call([&] { return JsonbIteratorNext(&it, &e, true); });
                if (t == WJB_DONE) break;
                if (t == WJB_ELEM) check_number(element, label + " element " + std::to_string(++i), e);
            }
            return;
        }
    }
}

}  // namespace

std::string jsonb_value_text(Datum jsonb) {
    return cut_json(pg_call([&] { return DatumGetCString(DirectFunctionCall1(jsonb_out, jsonb)); }));
}

std::string jsonb_text(Datum jsonb) {
    return pg_call([&] { return DatumGetCString(DirectFunctionCall1(jsonb_out, jsonb)); });
}

bool for_each_json_value(Datum options, const std::function<void(const std::string&, const JsonbValue&)>& on_value) {
    Jsonb* jb = pg_call([&] { return DatumGetJsonbP(options); });
    if (!JB_ROOT_IS_OBJECT(jb)) return false;
    JsonbIterator* it = pg_call([&] { return JsonbIteratorInit(&jb->root); });
    JsonbValue v;
    std::string key;
    for (;;) {
        JsonbIteratorToken t = pg_call([&] { return JsonbIteratorNext(&it, &v, true); });
        if (t == WJB_DONE) break;
        if (t == WJB_KEY) key.assign(v.val.string.val, v.val.string.len);
        if (t == WJB_VALUE) on_value(key, v);
    }
    return true;
}

void check_json_options(Datum options, const char* argument, const char* what, const std::vector<OptionSpec>& specs) {
    bool object = for_each_json_value(options, [&](const std::string& key, const JsonbValue& v) {
        for (const auto& s : specs)
            if (key == s.name) check_option(s, std::string(what) + " " + s.name, v);
    });
    if (!object)
        fail(ErrorKind::InvalidParameter,
             std::string(argument) + " must be a JSON object, got " + jsonb_value_text(options));
}

// A string's content, a number's digits, true/false, as ->> gives them; nullopt for
// JSON null, an object or an array.
static std::optional<std::string> scalar_text(const JsonbValue& v) {
    switch (v.type) {
        case jbvString:
            return std::string(v.val.string.val, v.val.string.len);
        case jbvNumeric:
            return numeric_text(v.val.numeric, false);
        case jbvBool:
            return std::string(v.val.boolean ? "true" : "false");
        default:
            return std::nullopt;
    }
}

JsonbAt jsonb_text_at(Datum jsonb, const std::vector<std::string>& path) {
    JsonbContainer* container = &pg_call([&] { return DatumGetJsonbP(jsonb); })->root;
    JsonbValue found;
    for (std::size_t i = 0; i < path.size(); ++i) {
        const std::string& step = path[i];
        const JsonbValue* v = nullptr;
        if (JsonContainerIsScalar(container)) {
            return {};
        } else if (JsonContainerIsObject(container)) {
            v = pg_call([&] { return getKeyJsonValueFromContainer(container, step.data(), step.size(), &found); });
        } else {  // an array: a step is an index, as #> takes it (here without a sign)
            if (step.empty() || step.size() > 9 || step.find_first_not_of("0123456789") != std::string::npos) return {};
            const uint32 index = static_cast<uint32>(std::stoul(step));
            v = pg_call([&] { return getIthJsonbValueFromContainer(container, index); });
        }
        if (!v) return {};
        found = *v;
        if (i + 1 < path.size()) {
            if (found.type != jbvBinary) return {};
            container = found.val.binary.data;
        }
    }
    JsonbAt at{true, scalar_text(found)};
    if (found.type == jbvBinary)  // an object or an array: its JSON text
        at.text = pg_call([&] { return JsonbToCString(nullptr, found.val.binary.data, found.val.binary.len); });
    return at;
}

std::map<std::string, std::string> json_option_texts(Datum options) {
    std::map<std::string, std::string> texts;
    for_each_json_value(options, [&](const std::string& key, const JsonbValue& v) {
        if (std::optional<std::string> text = scalar_text(v)) texts[key] = std::move(*text);
    });
    return texts;
}

void check_object_name(const char* kind, std::string_view name) {
    std::string what(kind);
    if (name.empty()) fail(ErrorKind::InvalidParameter, what + " name must not be empty");
    if (name.size() > 200)
        fail(ErrorKind::InvalidParameter, what + " name " + quote_value(name) + " is longer than 200 bytes");
    for (char c : name)
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f)
            fail(ErrorKind::InvalidParameter, what + " name " + quote_value(name) + " contains a control character");
}

void check_hierarchy_name(std::string_view name) { check_object_name("hierarchy", name); }

}  // namespace privrisk::pg
