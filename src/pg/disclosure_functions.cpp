// Scalar disclosure operators hide and gen (SPEC §4.2, first bullet; digest 000 §3.A-B).
// ⊥ is NULL. An unknown (NULL) disclosure condition protects: only TRUE discloses.
#include <cstdio>

#include "args.hpp"
#include "error.hpp"
#include "hierarchy_catalog.hpp"

using namespace privrisk;
using namespace privrisk::pg;

// hide(value, disclose): the value when disclose is TRUE, else ⊥. Cannot fail.
extern "C" {
PG_FUNCTION_INFO_V1(privrisk_hide);
Datum privrisk_hide(PG_FUNCTION_ARGS) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1) || !PG_GETARG_BOOL(1)) PG_RETURN_NULL();
    PG_RETURN_DATUM(PG_GETARG_DATUM(0));
}
}

namespace {

// Per call site: how to turn the value's type into the text the hierarchy holds.
struct GenMemo {
    void* hierarchy_memo;
    Oid type;
    bool is_text;
    FmgrInfo output;
};

GenMemo& gen_memo(FunctionCallInfo fcinfo) {
    auto* memo = static_cast<GenMemo*>(fcinfo->flinfo->fn_extra);
    if (memo) return *memo;
    Oid type = pg_call([&] { return get_fn_expr_argtype(fcinfo->flinfo, 0); });
    if (!OidIsValid(type)) fail(ErrorKind::InvalidParameter, "gen: cannot determine the type of the value");
    memo = static_cast<GenMemo*>(
        pg_call([&] { return MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(GenMemo)); }));
    memo->type = type;
    memo->is_text = type == TEXTOID || type == VARCHAROID;
    if (!memo->is_text && type != DATEOID) output_function(type, &memo->output, fcinfo->flinfo->fn_mcxt);
    fcinfo->flinfo->fn_extra = memo;
    return *memo;
}

// The value as hierarchy text: text as is, dates in ISO form whatever DateStyle
// says, anything else through its output function.
std::string value_text(GenMemo& memo, Datum value) {
    if (memo.is_text) return std::string(text_view(value));
    if (memo.type == DATEOID) {
        DateADT date = DatumGetDateADT(value);
        if (DATE_NOT_FINITE(date)) fail(ErrorKind::InvalidParameter, "gen: an infinite date has no generalization");
        int year, month, day;
        j2date(date + POSTGRES_EPOCH_JDATE, &year, &month, &day);
        char buf[32];
        std::snprintf(buf, sizeof buf, "%04d-%02d-%02d", year, month, day);
        return buf;
    }
    char* s = pg_call([&] { return OutputFunctionCall(&memo.output, value); });
    std::string out(s);
    pg_call([&] { pfree(s); });
    return out;
}

}  // namespace

// gen(value, hierarchy, level [, disclose]): the level-`level` ancestor as text;
// with `disclose` TRUE the value itself (still checked against the hierarchy).
PRIVRISK_FUNCTION(privrisk_gen) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "gen: hierarchy must not be NULL");
    if (PG_ARGISNULL(2)) fail(ErrorKind::InvalidParameter, "gen: level must not be NULL");
    GenMemo& memo = gen_memo(fcinfo);
    const Hierarchy& h = hierarchy_for_call(fcinfo, PG_GETARG_TEXT_PP(1), &memo.hierarchy_memo);
    bool disclose = PG_NARGS() > 3 && !PG_ARGISNULL(3) && PG_GETARG_BOOL(3);
    std::string value = value_text(memo, PG_GETARG_DATUM(0));
    int level = PG_GETARG_INT32(2);
    std::string scratch;
    Value g = h.generalize(value, level, scratch);  // checks value and level on every row, disclosed or not
    if (disclose) g = value;
    if (!g) PG_RETURN_NULL();
    return text_datum(*g);
}
