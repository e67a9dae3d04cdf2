// Level 1 (docs/measures.md): privrisk.hist(sensitive) over the rows of one class.
// The state is a core HistogramBuilder placed in the aggregate's memory
// context (internal, with serialize/deserialize for parallel plans); the
// result is the shippable, non-internal privrisk.hist. Each state is bounded by
// privrisk.memory_limit (docs/memory.md).
#include "classes/class_histogram.hpp"
#include "common/error.hpp"
#include "classes/hist_type.hpp"
#include "common/value_text.hpp"
#include "common/memory.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

HistogramBuilder* state(FunctionCallInfo fcinfo, MemoryContext context) {
    if (!PG_ARGISNULL(0)) return reinterpret_cast<HistogramBuilder*>(PG_GETARG_POINTER(0));
    return construct_in<HistogramBuilder>(context);
}

// What one class's histogram holds (its entries' block and index) and will hold
// when the final function encodes it (an array of its entries to sort, the
// encoding and its copy as the result), all bounded by privrisk.memory_limit:
// a class with millions of distinct sensitive values stops with an error.
std::size_t footprint(const void* owner) {
    const auto& b = *static_cast<const HistogramBuilder*>(owner);
    return std::size_t(b.capacity) + sizeof(uint32_t) * std::size_t(b.nslots) +
           (sizeof(std::string_view) + sizeof(int64_t)) * std::size_t(b.nvalues) + 2 * std::size_t(b.used);
}

// Runs f(mr) with a resource bounded for state b, and checks b after it.
template <typename F>
void bounded(MemoryContext context, const HistogramBuilder* b, F&& f) {
    within_memory_limit("hist: one class's distinct values (and their encoding)",
                        "raise privrisk.memory_limit, or count a generalization of the sensitive value", [&] {
                            StateBoundResource mr(context, memory_bound().bytes, footprint, b);
                            f(&mr);
                            mr.check();
                        });
}

}  // namespace

// hist(sensitive anyelement): NULL counts as ⊥.
PRIVRISK_FUNCTION(privrisk_hist_transition) {
    MemoryContext context = aggregate_context(fcinfo);
    HistogramBuilder* b = state(fcinfo, context);
    if (PG_ARGISNULL(1)) {
        b->add_bottom(1);
    } else {
        // Its canonical text, as every other reader counts a sensitive value (value_text.hpp).
        std::string_view value =
            value_text_of(argument_value_text(fcinfo, 1, &fcinfo->flinfo->fn_extra), PG_GETARG_DATUM(1));
        bounded(context, b, [&](std::pmr::memory_resource* mr) { b->add(value, 1, mr); });
    }
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
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_POINTER(PG_GETARG_POINTER(0));
    }
    HistogramBuilder* b = state(fcinfo, context);  // a fresh one in the aggregate context if arg 0 is NULL
    const auto* other = reinterpret_cast<HistogramBuilder*>(PG_GETARG_POINTER(1));
    bounded(context, b, [&](std::pmr::memory_resource* mr) { b->merge(*other, mr); });
    PG_RETURN_POINTER(b);
}

PRIVRISK_FUNCTION(privrisk_hist_serialize) {
    aggregate_context(fcinfo);
    std::string encoded = reinterpret_cast<HistogramBuilder*>(PG_GETARG_POINTER(0))->encode();
    return hist_datum(encoded);  // a bytea: same varlena layout
}

PRIVRISK_FUNCTION(privrisk_hist_deserialize) {
    MemoryContext context = aggregate_context(fcinfo);
    std::string_view bytes = hist_bytes(PG_GETARG_DATUM(0));
    validate_histogram(bytes, false);  // read unchecked below; a worker's state is one, anything else is refused
    auto* b = construct_in<HistogramBuilder>(context);
    bounded(context, b, [&](std::pmr::memory_resource* mr) { b->add_encoded(bytes, mr); });
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
    HistogramBuilder* b = state(fcinfo, context);
    if (!PG_ARGISNULL(1)) {
        std::string_view bytes = hist_bytes(PG_GETARG_DATUM(1));
        bounded(context, b, [&](std::pmr::memory_resource* mr) { b->add_encoded(bytes, mr); });
    }
    PG_RETURN_POINTER(b);
}
