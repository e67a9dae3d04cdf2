#include "classes/table_tally.hpp"
#include "classes/read_choice.hpp"

#include <array>
#include <cstring>
#include <optional>

#include "classes/class_query.hpp"
#include "classes/parallel_classes.hpp"
#include "common/flat_index.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/memory.hpp"
#include "common/spi.hpp"
#include "common/value_text.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// The aggregate's state, in a memory context of its own under the aggregate's
// (never destroyed: everything it holds comes from that context), bounded by
// privrisk.memory_limit as the state was made: other aggregates and groups
// of the query do not count. A worker's state arrives serialized and stays
// raw until combined (one pass over its tuples instead of two).
struct TallyState {
    PgMemoryResource mr;
    TupleTally tally;
    std::pmr::string raw;
    MemoryContext row_context = nullptr;  // output texts and detoasted values, reset every 4,096 rows
    ClassKeyReader* readers = nullptr;    // per column, once the argument types are known
    ValueText* texts = nullptr;
    std::pmr::vector<uint32_t> codes;
    std::pmr::vector<std::array<char, sizeof(Datum)>> scratch;
    TallyState(MemoryContext context, std::size_t width)
        : mr(context, memory_bound().bytes), tally(&mr, width), raw(&mr), codes(width, &mr), scratch(width, &mr) {
        // Waiting rows (8 bytes each, and as much again to sort them) take at most a quarter of the bound.
        tally.set_buffered_rows(mr.limit() / 64);
    }
};

// Each column needs at least its 4-byte value count, so a width the bytes cannot hold is refused
// before anything is sized by it.
uint32_t tally_width(std::string_view bytes) {
    uint32_t width;
    if (bytes.size() < sizeof width) fail(ErrorKind::InvalidParameter, "a tuple tally's byte form is truncated");
    std::memcpy(&width, bytes.data(), sizeof width);
    if (width == 0 || width > (bytes.size() - sizeof width) / sizeof(uint32_t))
        fail(ErrorKind::InvalidParameter,
             "a tuple tally's byte form has an impossible width of " + std::to_string(width));
    return width;
}

// Prepares a transition state's readers for the call's argument types.
void init_readers(TallyState* s, FunctionCallInfo fcinfo, MemoryContext context) {
    ArgumentReaders r = argument_readers(fcinfo, 1, s->codes.size(), context);
    s->readers = r.keys;
    s->texts = r.texts;
    s->row_context = r.row_context;
}

template <typename F>
decltype(auto) bounded(F&& f) {
    return within_memory_limit("tuple_tally: the distinct tuples (identification's released table or dictionary)",
                               "raise privrisk.memory_limit, or identify over fewer or coarser columns", f);
}

// What identification's counter holds per distinct tuple of a table besides its
// codes: its count, index slots, the value texts and the matching structures
// (measured in docs/memory.md: about 250 bytes per tuple of two columns in all).
constexpr std::size_t kCountedTupleBytes = 224;

// A new state, in its own context under the aggregate's; its first allocations
// (the columns' indexes) count against the limit too.
TallyState* new_state(FunctionCallInfo fcinfo, std::size_t width) {
    MemoryContext parent = aggregate_context(fcinfo);
    MemoryContext context =
        pg_call([&] { return AllocSetContextCreate(parent, "privrisk tuple tally", ALLOCSET_SMALL_SIZES); });
    return bounded([&] { return construct_in<TallyState>(context, context, width); });
}

TallyState* state_arg(FunctionCallInfo fcinfo, int arg) {
    aggregate_context(fcinfo);  // an internal pointer: only an aggregate has one
    return PG_ARGISNULL(arg) ? nullptr : reinterpret_cast<TallyState*>(PG_GETARG_POINTER(arg));
}

// One row's values into the tally.
void add_row(TallyState* s, FunctionCallInfo fcinfo) {
    const std::size_t width = s->codes.size();
    for (std::size_t j = 0; j < width; ++j) {
        const int arg = static_cast<int>(j) + 1;
        if (PG_ARGISNULL(arg)) {
            s->codes[j] = 0;
            continue;
        }
        Datum v = PG_GETARG_DATUM(arg);
        bool added;
        s->codes[j] = s->tally.code(j, s->readers[j].read(v, s->scratch[j].data(), s->row_context), &added);
        if (added)
            s->tally.set_text(j, pg_call([&] {
                                  MemoryContext old = MemoryContextSwitchTo(s->row_context);
                                  std::string_view text = value_text(&s->texts[j], v);
                                  MemoryContextSwitchTo(old);
                                  return text;
                              }));
    }
    s->tally.add(s->codes.data());
    if ((s->tally.rows() & 4095) == 0) pg_call([&] { MemoryContextReset(s->row_context); });
}

}  // namespace

// tuple_tally(VARIADIC "any"): one row's values.
PRIVRISK_FUNCTION(privrisk_tuple_tally_transition) {
    MemoryContext context = aggregate_context(fcinfo);
    TallyState* s = state_arg(fcinfo, 0);
    if (!s) {
        const std::size_t width = static_cast<std::size_t>(PG_NARGS() - 1);
        if (width == 0) fail(ErrorKind::InvalidParameter, "tuple_tally needs at least one column");
        s = new_state(fcinfo, width);
    }
    if (!s->readers) init_readers(s, fcinfo, context);
    bounded([&] { add_row(s, fcinfo); });
    PG_RETURN_POINTER(s);
}

PRIVRISK_FUNCTION(privrisk_tuple_tally_combine) {
    TallyState* other = state_arg(fcinfo, 1);
    TallyState* s = state_arg(fcinfo, 0);
    if (!other) {
        if (!s) PG_RETURN_NULL();
        PG_RETURN_POINTER(s);
    }
    if (!s) s = new_state(fcinfo, other->codes.size());
    bounded([&] {
        if (!other->raw.empty()) s->tally.merge_serialized(other->raw);
        else s->tally.merge_serialized(other->tally.serialize());
    });
    PG_RETURN_POINTER(s);
}

// The byte form of a state (a worker's, or the final one). Over 1 GB it cannot be a
// bytea: the table has too many distinct tuples to be read this way.
static Datum tally_bytes(const TallyState* s) {
    std::string bytes = bounded([&] { return s->raw.empty() ? s->tally.serialize() : std::string(s->raw); });
    if (bytes.size() > MaxAllocSize - VARHDRSZ)
        fail(ErrorKind::ProgramLimit, "a table with " + std::to_string(s->tally.tuples()) +
                                          " distinct tuples is too large to identify against in one pass (over 1 GB)");
    return text_datum(bytes);  // a bytea: the same varlena layout
}

PRIVRISK_FUNCTION(privrisk_tuple_tally_serialize) { return tally_bytes(state_arg(fcinfo, 0)); }

PRIVRISK_FUNCTION(privrisk_tuple_tally_deserialize) {
    std::string_view bytes = text_view(PG_GETARG_DATUM(0));
    auto* s = new_state(fcinfo, tally_width(bytes));
    bounded([&] { s->raw.assign(bytes.data(), bytes.size()); });
    PG_RETURN_POINTER(s);
}

PRIVRISK_FUNCTION(privrisk_tuple_tally_final) {
    const TallyState* s = state_arg(fcinfo, 0);
    if (!s) PG_RETURN_NULL();
    return tally_bytes(s);
}

namespace privrisk::pg {

namespace {

// A table the caller may read whole, read by `workers` parallel workers (choose_read's; parallel_classes.hpp):
// its tuples arrive by their binary keys and are coded here, each new value's text
// made once. nullopt when the parallel read cannot run here (no workers, or no
// shared memory: then nothing has been handed to the callbacks yet).
std::optional<int64_t> tally_in_parallel(const SourceRelation& source, const std::vector<SourceColumn>& columns,
                                         int workers, const TupleTally::ValueCallback& on_value,
                                         const std::function<void(const uint32_t*, int64_t)>& on_tuple,
                                         const std::function<void(uint64_t)>& on_tuples) {
    const std::size_t width = columns.size();
    std::vector<AttrNumber> attnums;
    for (const SourceColumn& c : columns) attnums.push_back(c.attnum);
    if (workers == 0) return std::nullopt;
    std::vector<ValueText> texts(width);
    std::vector<bool> by_value(width);
    for (std::size_t j = 0; j < width; ++j) {
        by_value[j] = ClassKeyReader::for_type(columns[j].type).kind == ClassKeyReader::kByValue;
        pg_call([&] { init_value_text(&texts[j], columns[j].type, CurrentMemoryContext); });
    }
    std::vector<FlatIndex> index;
    for (std::size_t j = 0; j < width; ++j) index.emplace_back(std::pmr::new_delete_resource());
    std::vector<uint32_t> codes(width);
    MemoryContext text_context = pg_call(
        [] { return AllocSetContextCreate(CurrentMemoryContext, "privrisk tuple texts", ALLOCSET_SMALL_SIZES); });
    int64_t rows = 0, tuples = 0;
    bool started = false;  // past this, a failure is an error: the callbacks have state
    auto on_key = [&](std::string_view key, int64_t count) {
        for_each_key_value(key, width, [&](std::size_t j, std::optional<std::string_view> bytes) {
            if (!bytes) {
                codes[j] = 0;
                return;
            }
            bool added;
            codes[j] = index[j].find_or_add(*bytes, &added) + 1;
            if (!added) return;
            pg_call([&] { MemoryContextReset(text_context); });
            on_value(j, codes[j], *bytes, key_value_text(&texts[j], by_value[j], *bytes, text_context));
        });
        rows += count;
        on_tuple(codes.data(), count);
        if ((++tuples & 4095) == 0) pg_call([] { CHECK_FOR_INTERRUPTS(); });
    };
    Caught caught;
    int launched = 0;
    bool read = in_subtransaction(
        // Before any tuple is handed over: out of shared memory, or past privrisk.memory_limit
        // in a process (each holds its row buffers, 16 MB, before its first tuple).
        [&](int code) { return !started && parallel_read_may_fall_back(code); },
        [&] {
            launched = parallel_tuple_table(
                source.relid, attnums, workers, memory_bound().bytes,
                [&](uint64_t n) {
                    started = true;
                    memory_bound().check(n * (4 * width + kCountedTupleBytes),
                                         "identification: the distinct tuples of " + source.qualified + ", counted",
                                         "raise it, or identify over fewer or coarser columns");
                    if (on_tuples) on_tuples(n);
                },
                on_key);
        },
        &caught);
    pg_call([&] { MemoryContextDelete(text_context); });
    if (!read) {
        pg_call([&] {
            ereport(NOTICE, (errmsg("the parallel read failed (%s); reading through SQL", caught.message.c_str())));
        });
        return std::nullopt;
    }
    pg_call([&] {
        elog(DEBUG1, "tally: %s read in parallel by %d workers: %lld rows, %lld distinct tuples",
             source.qualified.c_str(), launched, static_cast<long long>(rows), static_cast<long long>(tuples));
    });
    return rows;
}

}  // namespace

int64_t tally_table(const SourceRelation& source, const std::vector<SourceColumn>& columns,
                    const TupleTally::ValueCallback& on_value,
                    const std::function<void(const uint32_t*, int64_t)>& on_tuple,
                    const std::function<void(uint64_t)>& on_tuples) {
    std::string tally = "privrisk.tuple_tally(";
    for (std::size_t j = 0; j < columns.size(); ++j) tally += (j ? ", " : "") + columns[j].quoted;
    tally += ")";
    // Over shards (foreign partitions), each shard tallies its own rows (postgres_fdw ships the
    // aggregate), concurrently; their tallies are added up here (docs/scale-out.md). Only for
    // columns whose text does not depend on postgres_fdw's session (class_shards).
    const ReadChoice choice = choose_read(source.relid, columns, columns.size(), {true, true, true, false});
    const std::vector<Shard>& shards = choice.shards;
    if (shards.empty())
        if (std::optional<int64_t> rows =
                tally_in_parallel(source, columns, choice.workers, on_value, on_tuple, on_tuples))
            return *rows;
    std::string select;
    for (const Shard& shard : shards)
        select += (select.empty() ? "SELECT " : " UNION ALL SELECT ") + tally + " FROM " + shard.qualified;
    if (shards.empty()) select = source_select(source, {tally});
    Spi spi;
    uint64 parts = spi.run(select.c_str(), {}, true);
    std::optional<std::string> merged;
    if (shards.empty()) {
        if (!spi.null(0, 1)) merged = spi.string(0, 1);
    } else {  // the shards' tallies added up here, under the same bound as a state
        MemoryContext context = pg_call([] {
            return AllocSetContextCreate(CurrentMemoryContext, "privrisk shard tallies", ALLOCSET_DEFAULT_SIZES);
        });
        PgMemoryResource mr(context, memory_bound().bytes);
        bounded([&] {
            TupleTally sum(&mr, columns.size());
            bool any = false;
            for (uint64 i = 0; i < parts; ++i)
                if (!spi.null(i, 1)) {
                    std::string bytes = spi.string(i, 1);
                    if (tally_width(bytes) != columns.size())
                        fail(ErrorKind::Internal, "a tuple tally of another width");
                    sum.merge_serialized(bytes);
                    any = true;
                }
            if (any) merged = sum.serialize();
        });
    }
    int64_t rows = 0, tuples = 0;
    if (merged) {
        const std::string& bytes = *merged;
        if (tally_width(bytes) != columns.size()) fail(ErrorKind::Internal, "a tuple tally of another width");
        // The caller copies the tuples (identification's counter: their codes, counts and
        // index); with the byte form here and in SPI's result, all within the bound.
        const MemoryBound bound = memory_bound();
        const std::size_t width = columns.size();
        auto announce = [&](uint64_t n) {
            bound.check(2 * bytes.size() + n * (4 * width + kCountedTupleBytes),
                        "identification: the distinct tuples of " + source.qualified + ", in byte form and counted",
                        "raise it, or identify over fewer or coarser columns");
            if (on_tuples) on_tuples(n);
        };
        TupleTally::read(
            bytes, on_value,
            [&](const uint32_t* codes, int64_t times) {
                rows += times;
                on_tuple(codes, times);
                if ((++tuples & 4095) == 0) pg_call([] { CHECK_FOR_INTERRUPTS(); });
            },
            announce);
    }
    spi.finish();
    return rows;
}

}  // namespace privrisk::pg
