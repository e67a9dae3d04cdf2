// Scalar disclosure operators hide and gen (docs/release.md, first bullet; [LSFB09]).
// ⊥ is NULL. An unknown (NULL) disclosure condition protects: only TRUE discloses.
#include "common/args.hpp"
#include "common/error.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "hierarchy/pinned_hierarchy_type.hpp"
#include "common/value_text.hpp"

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

// Per call site: the hierarchy memo and how to turn the value into hierarchy text.
struct GenMemo {
    void* hierarchy_memo;
    ValueText value_text;
};

GenMemo& gen_memo(FunctionCallInfo fcinfo) {
    auto* memo = static_cast<GenMemo*>(fcinfo->flinfo->fn_extra);
    if (memo) return *memo;
    Oid type = pg_call([&] { return get_fn_expr_argtype(fcinfo->flinfo, 0); });
    if (!OidIsValid(type)) fail(ErrorKind::InvalidParameter, "gen: cannot determine the type of the value");
    memo = static_cast<GenMemo*>(pg_call([&] {
        auto* m = static_cast<GenMemo*>(MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(GenMemo)));
        init_value_text(&m->value_text, type, fcinfo->flinfo->fn_mcxt);
        return m;
    }));
    fcinfo->flinfo->fn_extra = memo;
    return *memo;
}

}  // namespace

namespace {

// gen's arguments checked, its call-site memo and its hierarchy, found by
// `lookup` (by name, or pinned).
template <typename Lookup>
Datum gen_result(FunctionCallInfo fcinfo, Lookup lookup) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "gen: hierarchy must not be NULL");
    if (PG_ARGISNULL(2)) fail(ErrorKind::InvalidParameter, "gen: level must not be NULL");
    GenMemo& memo = gen_memo(fcinfo);
    const Hierarchy& h = lookup(memo);
    bool disclose = PG_NARGS() > 3 && !PG_ARGISNULL(3) && PG_GETARG_BOOL(3);
    Datum datum = PG_GETARG_DATUM(0);
    std::string value(value_text_of(&memo.value_text, datum));
    std::string scratch;
    Value g =
        h.generalize(value, PG_GETARG_INT32(2), scratch);  // checks value and level on every row, disclosed or not
    if (disclose) g = value;
    if (!g) PG_RETURN_NULL();
    return text_datum(*g);
}

}  // namespace

// gen(value, hierarchy, level [, disclose]): the level-`level` ancestor as text;
// with `disclose` TRUE the value itself (still checked against the hierarchy).
PRIVRISK_FUNCTION(privrisk_gen) {
    return gen_result(fcinfo, [&](GenMemo& memo) -> const Hierarchy& {
        return hierarchy_for_call(fcinfo, PG_GETARG_TEXT_PP(1), &memo.hierarchy_memo);
    });
}

// gen(value, pinned_hierarchy, level): the same through a hierarchy pinned by
// its digest, so the result depends on the arguments only (IMMUTABLE:
// postgres_fdw may run it on a shard, a partition key may use it).
PRIVRISK_FUNCTION(privrisk_gen_pinned) {
    return gen_result(fcinfo, [&](GenMemo& memo) -> const Hierarchy& {
        return pinned_hierarchy_for_call(fcinfo, PG_GETARG_DATUM(1), &memo.hierarchy_memo);
    });
}

// canonical_text(value): the text gen() looks a value up by and every reader of a
// sensitive value counts it by (value_text.hpp), whatever DateStyle says; what
// hierarchy_coverage() lists a value by.
PRIVRISK_FUNCTION(privrisk_canonical_text) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    std::string_view v = value_text_of(argument_value_text(fcinfo, 0, &fcinfo->flinfo->fn_extra), PG_GETARG_DATUM(0));
    return text_datum(v);
}
