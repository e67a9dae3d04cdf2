// Level 1 (docs/measures.md): privrisk.hist(sensitive) over the rows of one class.
// The state is a core HistogramBuilder placed in the aggregate's memory
// context (internal, with serialize/deserialize for parallel plans); the
// result is the shippable, non-internal privrisk.hist.
#include "classes/class_histogram.hpp"
#include "common/error.hpp"
#include "classes/hist_type.hpp"
#include "common/memory.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

HistogramBuilder* state(FunctionCallInfo fcinfo, MemoryContext context) {
    if (!PG_ARGISNULL(0)) return reinterpret_cast<HistogramBuilder*>(PG_GETARG_POINTER(0));
    return construct_in<HistogramBuilder>(context);
}

}  // namespace

// hist(sensitive anyelement): NULL counts as ⊥.
PRIVRISK_FUNCTION(privrisk_hist_transition) {
    MemoryContext context = aggregate_context(fcinfo);
    PgMemoryResource mr(context);
    HistogramBuilder* b = state(fcinfo, context);
    if (PG_ARGISNULL(1))
        b->add_bottom(1);
    else
        b->add(value_text(fcinfo, 1, &fcinfo->flinfo->fn_extra), 1, &mr);
    PG_RETURN_POINTER(b);
}

// hist(*): identity measures only; every row counts as ⊥.
PRIVRISK_FUNCTION(privrisk_hist_transition_star) {
    MemoryContext context = aggregate_context(fcinfo);
    HistogramBuilder* b = state(fcinfo, context);
    b->add_bottom(1);
    PG_RETURN_POINTER(b);
}

PRIVRISK_FUNCTION(privrisk_hist_combine) {
    MemoryContext context = aggregate_context(fcinfo);
    PgMemoryResource mr(context);
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_POINTER(PG_GETARG_POINTER(0));
    }
    HistogramBuilder* b = state(fcinfo, context);  // a fresh one in the aggregate context if arg 0 is NULL
    b->merge(*reinterpret_cast<HistogramBuilder*>(PG_GETARG_POINTER(1)), &mr);
    PG_RETURN_POINTER(b);
}

PRIVRISK_FUNCTION(privrisk_hist_serialize) {
    aggregate_context(fcinfo);
    std::string encoded = reinterpret_cast<HistogramBuilder*>(PG_GETARG_POINTER(0))->encode();
    return hist_datum(encoded);  // a bytea: same varlena layout
}

PRIVRISK_FUNCTION(privrisk_hist_deserialize) {
    MemoryContext context = aggregate_context(fcinfo);
    PgMemoryResource mr(context);
    std::string_view bytes = hist_bytes(PG_GETARG_DATUM(0));
    validate_histogram(bytes, false);  // read unchecked below; a worker's state is one, anything else is refused
    auto* b = construct_in<HistogramBuilder>(context);
    b->add_encoded(bytes, &mr);
    PG_RETURN_POINTER(b);
}

PRIVRISK_FUNCTION(privrisk_hist_final) {
    aggregate_context(fcinfo);
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    return hist_datum(reinterpret_cast<HistogramBuilder*>(PG_GETARG_POINTER(0))->encode());
}

// hist_merge(hist): the histogram of a union of classes (rolling classes up to a coarser release).
PRIVRISK_FUNCTION(privrisk_hist_merge_transition) {
    MemoryContext context = aggregate_context(fcinfo);
    PgMemoryResource mr(context);
    HistogramBuilder* b = state(fcinfo, context);
    if (!PG_ARGISNULL(1)) b->add_encoded(hist_bytes(PG_GETARG_DATUM(1)), &mr);
    PG_RETURN_POINTER(b);
}
