// privrisk.class_tally(sensitive text, VARIADIC keys): the classes of the rows
// (one per distinct key tuple) with their sensitive counts, in the core
// ClassAggregator's tally form (serialize_tally; its partial states between
// workers in its partial form, serialize). It is how audit() reads a table with parallel
// workers (each tallies part of it, the leader merges) and a sharded table
// (each shard tallies its rows, the coordinator merges): docs/scale-out.md.
// audit() gives it the sensitive value's canonical text (canonical_text_sql).
// A state's memory is bounded by privrisk.audit_memory_limit in each process;
// past it the tally fails with SQLSTATE 54000 and audit() groups with a
// spilling GROUP BY instead.
#include <array>
#include <cstring>

#include "classes/class_aggregator.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/memory.hpp"
#include "common/source_columns.hpp"
#include "common/value_text.hpp"
#include "classes/class_memory.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// The state lives in a memory context of its own, whose reset callback runs its
// destructor (the sensitive values' table uses the C++ heap). `merged`: built by
// combine or deserialize, so keyed by texts. A worker's state arrives as bytes
// and stays raw until combined (one pass over its classes instead of two).
struct ClassTallyState {
    PgMemoryResource mr;
    ClassAggregator aggregator;
    bool merged;
    std::pmr::string raw;
    MemoryContext row_context = nullptr;  // output texts and detoasted values, reset every 4,096 rows
    ClassKeyReader* readers = nullptr;    // per key, once the argument types are known
    ValueText* texts = nullptr;
    std::pmr::vector<Value> keys;
    std::pmr::vector<std::array<char, sizeof(Datum)>> scratch;
    MemoryContextCallback destroy;
    ClassTallyState(MemoryContext context, std::size_t width, bool merged)
        : mr(context, audit_memory_bytes()),
          aggregator(&mr, width),
          merged(merged),
          raw(&mr),
          keys(width, &mr),
          scratch(width, &mr) {}
};

// The memory limit, as the error audit() recognizes (54000) and falls back from.
template <typename F>
decltype(auto) bounded(F&& f) {
    return within_limit("privrisk.audit_memory_limit", "class_tally: the classes",
                        "raise privrisk.audit_memory_limit (audit() falls back to GROUP BY meanwhile)", f);
}

ClassTallyState* new_state(FunctionCallInfo fcinfo, std::size_t width, bool merged) {
    MemoryContext parent = aggregate_context(fcinfo);
    MemoryContext context =
        pg_call([&] { return AllocSetContextCreate(parent, "privrisk class tally", ALLOCSET_DEFAULT_SIZES); });
    auto* s = bounded([&] { return construct_in<ClassTallyState>(context, context, width, merged); });
    s->destroy.func = [](void* p) { static_cast<ClassTallyState*>(p)->~ClassTallyState(); };
    s->destroy.arg = s;
    pg_call([&] { MemoryContextRegisterResetCallback(context, &s->destroy); });
    return s;
}

ClassTallyState* state_arg(FunctionCallInfo fcinfo, int arg) {
    aggregate_context(fcinfo);  // an internal pointer: only an aggregate has one
    return PG_ARGISNULL(arg) ? nullptr : reinterpret_cast<ClassTallyState*>(PG_GETARG_POINTER(arg));
}

void init_readers(ClassTallyState* s, FunctionCallInfo fcinfo) {
    ArgumentReaders r = argument_readers(fcinfo, 2, s->keys.size(), s->mr.context());
    s->readers = r.keys;
    s->texts = r.texts;
    s->row_context = r.row_context;
}

// A new value's text, from the row's argument (only when the aggregator meets it first).
struct ArgumentTexts final : ClassAggregator::Texts {
    FunctionCallInfo fcinfo;
    ClassTallyState* s;
    std::string_view text(std::size_t j) override {
        Datum v = PG_GETARG_DATUM(static_cast<int>(j) + 2);
        return pg_call([&] {
            MemoryContext old = MemoryContextSwitchTo(s->row_context);
            std::string_view t = value_text(&s->texts[j], v);
            MemoryContextSwitchTo(old);
            return t;
        });
    }
};

// A raw state's bytes into its aggregator.
void absorb_raw(ClassTallyState* s) {
    if (s->raw.empty()) return;
    bounded([&] { s->aggregator.merge_serialized(s->raw); });
    s->raw.clear();
    s->raw.shrink_to_fit();
}

Datum partial_bytes(ClassTallyState* s) {
    if (!s->raw.empty() && s->aggregator.rows() == 0) return text_datum(std::string_view(s->raw));
    absorb_raw(s);
    std::string bytes = bounded([&] { return s->aggregator.serialize(); });
    if (bytes.size() > MaxAllocSize - VARHDRSZ)
        fail(ErrorKind::ProgramLimit, "class_tally: the classes take over 1 GB in byte form");
    return text_datum(bytes);  // a bytea: the same varlena layout
}

}  // namespace

PRIVRISK_FUNCTION(privrisk_class_tally_transition) {
    ClassTallyState* s = state_arg(fcinfo, 0);
    if (!s) {
        if (PG_NARGS() < 3) fail(ErrorKind::InvalidParameter, "class_tally needs at least one key");
        s = new_state(fcinfo, static_cast<std::size_t>(PG_NARGS() - 2), false);
    }
    if (s->merged || s->keys.size() != static_cast<std::size_t>(PG_NARGS() - 2))
        fail(ErrorKind::InvalidParameter, "class_tally: a state of another kind");
    if (!s->readers) init_readers(s, fcinfo);
    for (std::size_t j = 0; j < s->keys.size(); ++j) {
        const int arg = static_cast<int>(j) + 2;
        s->keys[j] = PG_ARGISNULL(arg)
                         ? Value()
                         : Value(s->readers[j].read(PG_GETARG_DATUM(arg), s->scratch[j].data(), s->row_context));
    }
    Value sensitive = PG_ARGISNULL(1) ? Value() : Value(text_view(PG_GETARG_DATUM(1)));
    ArgumentTexts texts;
    texts.fcinfo = fcinfo;
    texts.s = s;
    bounded([&] { s->aggregator.add(s->keys.data(), sensitive, &texts); });
    if ((s->aggregator.rows() & 4095) == 0) pg_call([&] { MemoryContextReset(s->row_context); });
    PG_RETURN_POINTER(s);
}

// Merging is by text, so the result is a state built by merges even when the
// first one was a transition's (a worker's or the leader's own).
PRIVRISK_FUNCTION(privrisk_class_tally_combine) {
    ClassTallyState* other = state_arg(fcinfo, 1);
    ClassTallyState* s = state_arg(fcinfo, 0);
    if (!other) {
        if (!s) PG_RETURN_NULL();
        PG_RETURN_POINTER(s);
    }
    ClassTallyState* into = s && s->merged ? s : new_state(fcinfo, other->keys.size(), true);
    absorb_raw(into);
    bounded([&] {
        if (s && s != into) into->aggregator.merge(s->aggregator);
        if (!other->raw.empty()) into->aggregator.merge_serialized(other->raw);
        else into->aggregator.merge(other->aggregator);
    });
    PG_RETURN_POINTER(into);
}

PRIVRISK_FUNCTION(privrisk_class_tally_serialize) { return partial_bytes(state_arg(fcinfo, 0)); }

PRIVRISK_FUNCTION(privrisk_class_tally_deserialize) {
    std::string_view bytes = text_view(PG_GETARG_DATUM(0));
    uint32_t width = 0;
    if (bytes.size() >= sizeof width) std::memcpy(&width, bytes.data(), sizeof width);
    if (width == 0 || width > bytes.size())
        fail(ErrorKind::InvalidParameter, "a class tally's byte form has an impossible width");
    ClassTallyState* s = new_state(fcinfo, width, true);
    bounded([&] { s->raw.assign(bytes.data(), bytes.size()); });  // checked when merged
    PG_RETURN_POINTER(s);
}

// The tally as it leaves this server (ClassAggregator::serialize_tally): its classes as
// one run, sorted by their values' texts, written straight into the bytea.
PRIVRISK_FUNCTION(privrisk_class_tally_final) {
    ClassTallyState* s = state_arg(fcinfo, 0);
    if (!s) PG_RETURN_NULL();
    absorb_raw(s);
    bytea* out = nullptr;
    bounded([&] {
        s->aggregator.serialize_tally([&](std::size_t n) {
            // Its hex text (postgres_fdw sends a bytea so) must fit in 1 GB too: past it the
            // shard's error would be byteaout's, which audit() cannot fall back from.
            if (n > (MaxAllocSize - VARHDRSZ) / 2 - 2)
                fail(ErrorKind::ProgramLimit, "class_tally: the classes take over 512 MB in byte form");
            out = static_cast<bytea*>(pg_call([&] { return palloc(n + VARHDRSZ); }));
            SET_VARSIZE(out, n + VARHDRSZ);
            return VARDATA(out);
        });
    });
    PG_RETURN_BYTEA_P(out);
}
