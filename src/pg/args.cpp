#include "args.hpp"

#include "error.hpp"

extern "C" {
#include "utils/jsonb.h"
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
            fail(ErrorKind::InvalidParameter, std::string(what) + " must not contain NULL (element " +
                                                  std::to_string(k + 1) + ")");
        out.push_back(nulls[k] ? std::nullopt : std::optional<Datum>(items[k]));
    }
    return out;
}

}  // namespace

std::vector<long> int4_array_arg_values(FunctionCallInfo fcinfo, int i, const char* what) {
    if (PG_ARGISNULL(i)) null_argument(what);
    std::vector<long> out;
    for (auto& e : array_elements(fcinfo, i, what, INT4OID, 4, true, TYPALIGN_INT, false)) out.push_back(DatumGetInt32(*e));
    return out;
}

std::vector<bool> bool_array_arg_values(FunctionCallInfo fcinfo, int i, const char* what) {
    if (PG_ARGISNULL(i)) null_argument(what);
    std::vector<bool> out;
    for (auto& e : array_elements(fcinfo, i, what, BOOLOID, 1, true, TYPALIGN_CHAR, false)) out.push_back(DatumGetBool(*e));
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
