// Aggregate states that arrive as SQL values (bigint[], float8[], bytea) can be
// made by hand by any role and passed to a support function directly, or as
// the INITCOND of an aggregate of their own. These checks run before any
// element is read, and a state is written in place only when the call is an
// aggregate's own (its state is then a private copy in the aggregate context).
#pragma once

#include <string>

#include "common/error.hpp"
#include "common/guard.hpp"

namespace privrisk::pg {

// True for calls made by an aggregate node (transition, combine or final).
inline bool in_aggregate(FunctionCallInfo fcinfo) { return AggCheckCallContext(fcinfo, nullptr) != 0; }

// A combine function's first step: when the second state is NULL there is
// nothing to combine and the result is the first state (NULL or not).
inline bool combine_with_null(FunctionCallInfo fcinfo, Datum* result) {
    if (!PG_ARGISNULL(1)) return false;
    fcinfo->isnull = PG_ARGISNULL(0);
    *result = fcinfo->isnull ? Datum(0) : PG_GETARG_DATUM(0);
    return true;
}

// Fails with "<function>: state must be <expected>, got <what>".
[[noreturn]] inline void bad_state(const char* function, const std::string& expected, const std::string& what) {
    fail(ErrorKind::InvalidParameter, std::string(function) + ": state must be " + expected + ", got " + what);
}

inline std::string elements(int n) { return std::to_string(n) + (n == 1 ? " element" : " elements"); }

// Argument `arg`, a one-dimensional array of `element` with lower bound 1, no
// NULL element and min_n..max_n elements; its element count in *n. With
// `writable`, outside an aggregate the caller gets a private copy to write into.
// `expected` describes the shape for the error ("a one-dimensional float8 array
// of kmax + 2 elements without NULLs").
inline ArrayType* array_state(FunctionCallInfo fcinfo, int arg, const char* function, const char* expected, Oid element,
                              int min_n, int max_n, bool writable, int* n) {
    ArrayType* a = writable && !in_aggregate(fcinfo) ? pg_call([&] { return PG_GETARG_ARRAYTYPE_P_COPY(arg); })
                                                     : pg_call([&] { return PG_GETARG_ARRAYTYPE_P(arg); });
    if (ARR_ELEMTYPE(a) != element) bad_state(function, expected, "an array of another element type");
    if (ARR_NDIM(a) == 0) bad_state(function, expected, "0 elements");
    if (ARR_NDIM(a) != 1) bad_state(function, expected, std::to_string(ARR_NDIM(a)) + " dimensions");
    if (ARR_LBOUND(a)[0] != 1) bad_state(function, expected, "lower bound " + std::to_string(ARR_LBOUND(a)[0]));
    int count = ARR_DIMS(a)[0];
    if (count < min_n || count > max_n) bad_state(function, expected, elements(count));
    if (ARR_HASNULL(a) && pg_call([&] { return array_contains_nulls(a); }))
        bad_state(function, expected, "a NULL element");
    *n = count;
    return a;
}

}  // namespace privrisk::pg
