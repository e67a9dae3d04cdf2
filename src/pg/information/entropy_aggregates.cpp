// The entropy aggregates (docs/information.md): entropy(x), conditional_entropy(x, y),
// mutual_information(x, y), in nats (and _bits). The state counts rows per
// distinct value (or pair) by a 128-bit fingerprint (core value_counts), lives
// in the aggregate's context, and crosses to parallel workers serialized.
//
// A value's identity is the one hist() uses, its displayed text: by-value types
// and the string types are fingerprinted in their binary form (equal bytes,
// equal text), others through their output function; a row value (ROW(a, b),
// a quasi-identifier tuple) field by field, NULL fields as ⊥.
#include <cstring>
#include <new>

#include "common/agg_state.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "information/information.hpp"
#include "common/memory.hpp"
#include "common/memory_limit.hpp"
#include "information/value_counts.hpp"
#include "common/value_text.hpp"

extern "C" {
#include "access/htup_details.h"
#include "funcapi.h"
#include "utils/typcache.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// A worker's state arrives serialized; it stays raw until combined into another
// (one pass over its entries instead of two). Its tables and raw bytes, and those
// of a state being combined into it, are bounded by privrisk.memory_limit as the
// state was made, before each grows. A state combined into another or serialized
// is never read again: its memory is given back then, so a parallel plan's leader
// holds one merged state and the partial state it is merging, not all of them.
struct CountsState {
    StateBoundResource mr;
    ValueCounts counts;
    std::pmr::string raw;
    const CountsState* merging = nullptr;
    CountsState(MemoryContext context, bool pairs)
        : mr(context, memory_bound().bytes, held, this), counts(&mr, pairs), raw(&mr) {}
    static std::size_t held(const void* owner) {
        const auto* s = static_cast<const CountsState*>(owner);
        // A state being merged came as a tuple's bytes, still held besides its raw copy.
        return s->counts.memory_bytes() + s->raw.capacity() +
               (s->merging ? held(s->merging) + s->merging->raw.capacity() : 0);
    }
    void release() {
        raw.clear();
        raw.shrink_to_fit();
        const bool pairs = counts.pairs();
        counts.~ValueCounts();
        new (&counts) ValueCounts(&mr, pairs);
    }
    ValueCounts& materialized() {
        if (!raw.empty()) {
            counts.add_serialized(raw);
            raw.clear();
            raw.shrink_to_fit();
        }
        return counts;
    }
};

// How one type's values are fingerprinted; cached per argument in fn_extra.
struct Identity {
    enum Kind : char { Bytes, Text, Padded, Output, Record } kind;
    int16 length;
    FmgrInfo output;
    // Record: the fields' identities, for the row type seen last.
    Oid record_type;
    int32 record_typmod;
    int fields;
    Identity* field;
};

void init_identity(Identity* id, Oid type, MemoryContext context) {
    bool byval;
    char align;
    pg_call([&] { get_typlenbyvalalign(type, &id->length, &byval, &align); });
    if (type == TEXTOID || type == VARCHAROID) id->kind = Identity::Text;
    else if (type == BPCHAROID) id->kind = Identity::Padded;
    else if (byval && id->length > 0) id->kind = Identity::Bytes;
    else if (pg_call([&] { return type_is_rowtype(type); })) id->kind = Identity::Record;
    else id->kind = Identity::Output;
    if (id->kind == Identity::Output) output_function(type, &id->output, context);
}

void add_part(FingerprintBuilder& f, Identity* id, Datum value, MemoryContext context);

void add_record(FingerprintBuilder& f, Identity* id, Datum value, MemoryContext context) {
    HeapTupleHeader header = pg_call([&] { return DatumGetHeapTupleHeader(value); });
    Oid type = HeapTupleHeaderGetTypeId(header);
    int32 typmod = HeapTupleHeaderGetTypMod(header);
    TupleDesc desc = pg_call([&] { return lookup_rowtype_tupdesc(type, typmod); });
    int n = desc->natts;
    if (!id->field || id->record_type != type || id->record_typmod != typmod) {
        id->field = static_cast<Identity*>(
            pg_call([&] { return MemoryContextAllocZero(context, sizeof(Identity) * (n ? n : 1)); }));
        for (int i = 0; i < n; ++i)
            if (!TupleDescAttr(desc, i)->attisdropped)
                init_identity(&id->field[i], TupleDescAttr(desc, i)->atttypid, context);
        id->record_type = type;
        id->record_typmod = typmod;
        id->fields = n;
    }
    Datum* values = static_cast<Datum*>(pg_call([&] { return palloc(sizeof(Datum) * (n ? n : 1)); }));
    bool* nulls = static_cast<bool*>(pg_call([&] { return palloc(sizeof(bool) * (n ? n : 1)); }));
    bool* dropped = static_cast<bool*>(pg_call([&] { return palloc(sizeof(bool) * (n ? n : 1)); }));
    for (int i = 0; i < n; ++i) dropped[i] = TupleDescAttr(desc, i)->attisdropped;
    pg_call([&] {
        HeapTupleData tuple;
        tuple.t_len = HeapTupleHeaderGetDatumLength(header);
        ItemPointerSetInvalid(&tuple.t_self);
        tuple.t_tableOid = InvalidOid;
        tuple.t_data = header;
        heap_deform_tuple(&tuple, desc, values, nulls);
        ReleaseTupleDesc(desc);
    });
    for (int i = 0; i < n; ++i) {  // desc is released: only the copied flags are read
        if (dropped[i]) continue;
        if (nulls[i]) f.bottom();
        else add_part(f, &id->field[i], values[i], context);
    }
}

void add_part(FingerprintBuilder& f, Identity* id, Datum value, MemoryContext context) {
    switch (id->kind) {
        case Identity::Bytes: {
            char bytes[sizeof(Datum)];
            std::memcpy(bytes, &value, sizeof value);
            f.part(std::string_view(bytes, sizeof value));
            return;
        }
        case Identity::Text:
            f.part(text_bytes(value));
            return;
        case Identity::Padded:
            f.part(bpchar_view(value));
            return;
        case Identity::Output: {
            char* s = pg_call([&] { return OutputFunctionCall(&id->output, value); });
            f.part(std::string_view(s, std::strlen(s)));
            return;
        }
        case Identity::Record:
            add_record(f, id, value, context);
            return;
    }
}

// The fingerprint of argument `arg`, its identity cached in slots[arg - 1].
Fingerprint fingerprint_arg(FunctionCallInfo fcinfo, int arg) {
    if (PG_ARGISNULL(arg)) return bottom_fingerprint();
    auto** slots = static_cast<Identity**>(fcinfo->flinfo->fn_extra);
    MemoryContext context = fcinfo->flinfo->fn_mcxt;
    if (!slots) {
        slots =
            static_cast<Identity**>(pg_call([&] { return MemoryContextAllocZero(context, 2 * sizeof(Identity*)); }));
        fcinfo->flinfo->fn_extra = slots;
    }
    Identity*& id = slots[arg - 1];
    if (!id) {
        Oid type = pg_call([&] { return get_fn_expr_argtype(fcinfo->flinfo, arg); });
        if (!OidIsValid(type))
            fail(ErrorKind::InvalidParameter, "cannot determine the type of argument " + std::to_string(arg));
        id = static_cast<Identity*>(pg_call([&] { return MemoryContextAllocZero(context, sizeof(Identity)); }));
        init_identity(id, type, context);
    }
    Datum value = PG_GETARG_DATUM(arg);
    if (id->kind == Identity::Text) return fingerprint(text_bytes(value));  // the common case, one call
    FingerprintBuilder f;
    add_part(f, id, value, context);
    return f.finish();
}

// One entry per distinct value (or pair): past privrisk.memory_limit, an error.
template <typename F>
decltype(auto) bounded(F&& f) {
    return within_memory_limit(
        "entropy: the distinct values (or pairs) counted",
        "raise privrisk.memory_limit, or measure fewer distinct values (a coarser generalization)", std::forward<F>(f));
}

// Every function here takes an internal pointer, which only an aggregate has:
// each checks that it runs in one before reading its argument.
CountsState* counts_state(FunctionCallInfo fcinfo, bool pairs) {
    MemoryContext context = aggregate_context(fcinfo);
    if (!PG_ARGISNULL(0)) return reinterpret_cast<CountsState*>(PG_GETARG_POINTER(0));
    return construct_in<CountsState>(context, context, pairs);
}

const ValueCounts* final_counts(FunctionCallInfo fcinfo) {
    aggregate_context(fcinfo);
    if (PG_ARGISNULL(0)) return nullptr;
    auto* s = reinterpret_cast<CountsState*>(PG_GETARG_POINTER(0));
    const ValueCounts& c = bounded([&]() -> const ValueCounts& { return s->materialized(); });
    return c.rows() ? &c : nullptr;
}

}  // namespace

// entropy(x): NULL is ⊥, a value of its own.
PRIVRISK_FUNCTION(privrisk_value_counts_transition) {
    CountsState* s = counts_state(fcinfo, false);
    Fingerprint x = fingerprint_arg(fcinfo, 1);
    bounded([&] { s->counts.add(x); });
    PG_RETURN_POINTER(s);
}

PRIVRISK_FUNCTION(privrisk_pair_counts_transition) {
    CountsState* s = counts_state(fcinfo, true);
    Fingerprint x = fingerprint_arg(fcinfo, 1), y = fingerprint_arg(fcinfo, 2);
    bounded([&] { s->counts.add(x, y); });
    PG_RETURN_POINTER(s);
}

PRIVRISK_FUNCTION(privrisk_value_counts_combine) {
    aggregate_context(fcinfo);
    if (Datum first; combine_with_null(fcinfo, &first)) return first;
    auto* other = reinterpret_cast<CountsState*>(PG_GETARG_POINTER(1));
    CountsState* s = counts_state(fcinfo, other->counts.pairs());
    s->merging = other;
    bounded([&] {
        ValueCounts& into = s->materialized();
        if (!other->raw.empty()) into.add_serialized(other->raw);
        into.merge(other->counts);
    });
    s->merging = nullptr;
    other->release();
    PG_RETURN_POINTER(s);
}

PRIVRISK_FUNCTION(privrisk_value_counts_serialize) {
    aggregate_context(fcinfo);
    auto* s = reinterpret_cast<CountsState*>(PG_GETARG_POINTER(0));
    std::string bytes = bounded([&]() -> const ValueCounts& { return s->materialized(); }).serialize();
    s->release();
    return text_datum(bytes);  // a bytea: same varlena layout
}

PRIVRISK_FUNCTION(privrisk_value_counts_deserialize) {
    MemoryContext context = aggregate_context(fcinfo);
    std::string_view bytes = text_view(PG_GETARG_DATUM(0));
    if (bytes.empty() || static_cast<unsigned char>(bytes[0]) > 1)
        fail(ErrorKind::InvalidParameter,
             "value_counts_deserialize: state must start with a kind byte 0 or 1, got " +
                 (bytes.empty() ? std::string("0 bytes") : quote_value(bytes.substr(0, 1))));
    auto* s = construct_in<CountsState>(context, context, bytes[0] != 0);
    bounded([&] { s->raw.assign(bytes.data(), bytes.size()); });
    PG_RETURN_POINTER(s);
}

// value_counts_merge(bytea): the counts of several value_counts() results (each shard's,
// docs/scale-out.md), as one byte form. The bytes may be anyone's: add_serialized checks them.
PRIVRISK_FUNCTION(privrisk_value_counts_merge_transition) {
    aggregate_context(fcinfo);
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_POINTER(PG_GETARG_POINTER(0));
    }
    std::string_view bytes = text_view(PG_GETARG_DATUM(1));
    if (bytes.empty()) fail(ErrorKind::InvalidParameter, "value_counts_merge: empty value counts");
    CountsState* s = counts_state(fcinfo, bytes[0] != 0);
    bounded([&] { s->materialized().add_serialized(bytes); });
    PG_RETURN_POINTER(s);
}

namespace {

Datum measured(FunctionCallInfo fcinfo, EntropyMeasure measure, bool bits) {
    const ValueCounts* c = final_counts(fcinfo);
    if (!c) PG_RETURN_NULL();
    PG_RETURN_FLOAT8(entropy_measure(*c, measure, bits));
}

}  // namespace

PRIVRISK_FUNCTION(privrisk_entropy_final) { return measured(fcinfo, EntropyMeasure::Entropy, false); }
PRIVRISK_FUNCTION(privrisk_entropy_bits_final) { return measured(fcinfo, EntropyMeasure::Entropy, true); }
PRIVRISK_FUNCTION(privrisk_conditional_entropy_final) {
    return measured(fcinfo, EntropyMeasure::ConditionalEntropy, false);
}
PRIVRISK_FUNCTION(privrisk_conditional_entropy_bits_final) {
    return measured(fcinfo, EntropyMeasure::ConditionalEntropy, true);
}
PRIVRISK_FUNCTION(privrisk_mutual_information_final) {
    return measured(fcinfo, EntropyMeasure::MutualInformation, false);
}
PRIVRISK_FUNCTION(privrisk_mutual_information_bits_final) {
    return measured(fcinfo, EntropyMeasure::MutualInformation, true);
}
