#include "measures/audit_read.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdio>

#include "classes/class_aggregator.hpp"
#include "classes/class_memory.hpp"
#include "classes/class_query.hpp"
#include "classes/class_set.hpp"
#include "classes/class_tallies.hpp"
#include "classes/hist_type.hpp"
#include "classes/parallel_classes.hpp"
#include "classes/read_choice.hpp"
#include "common/activity_progress.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/memory.hpp"
#include "common/memory_limit.hpp"
#include "common/row_stream.hpp"
#include "common/spi.hpp"
#include "common/value_text.hpp"
#include "measures/audit_levels.hpp"
#include "measures/audit_spill.hpp"

extern "C" {
#include "access/relation.h"
#include "catalog/pg_statistic.h"
#include "optimizer/cost.h"
#include "optimizer/paths.h"
#include "storage/bufmgr.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
}

namespace privrisk::pg {

namespace {

using Clock = std::chrono::steady_clock;

// What every read of one audit shares: what a SQL read selects (names quoted,
// never spliced), the memory the in-memory aggregation may hold, and its result.
struct AuditScan {
    const AuditSource& a;
    Oid relid;
    std::size_t width;
    bool sensitive;
    std::vector<AttrNumber> attnums;       // of the columns read, in the query's order
    bool generalized = false;              // a quasi-identifier has a hierarchy: the class reader reads
    std::vector<ClassKeyReader> readers;   // one per quasi-identifier
    ValueText sensitive_text{};            // the sensitive value's canonical text (value_text.hpp)
    std::vector<std::string> expressions;  // what the query selects, one per column
    std::string select;
    ReadChoice choice;  // shards (each server tallies its own rows), heap, workers (read_choice.hpp)
    MemoryContext memory = nullptr, row_context = nullptr;
    PgMemoryResource* bounded = nullptr;  // the in-memory aggregation: refused past the limit
    ContingencyTable table;
    Size peak = 0;
    int launched = 0;
    Clock::time_point streamed = Clock::now();

    explicit AuditScan(const AuditSource& audited)
        : a(audited),
          relid(audited.source.relid),
          width(audited.columns.size()),
          sensitive(audited.sensitive.has_value()) {
        for (const ClassColumn& column : a.columns) {
            attnums.push_back(column.column.attnum);
            generalized = generalized || column.hierarchy.has_value();
            expressions.push_back(column.column.quoted);  // read in its binary form where that identifies the value
            readers.push_back(ClassKeyReader::for_type(column.column.type));
        }
        // The sensitive value is read as it is and counted by its canonical text (value_text.hpp):
        // in C++, by hist() in the spilling GROUP BY, and given to class_tally as that text.
        if (sensitive) {
            attnums.push_back(a.sensitive->attnum);
            expressions.push_back(a.sensitive->quoted);
            pg_call([&] { init_value_text(&sensitive_text, a.sensitive->type, CurrentMemoryContext, true); });
        }
        select = source_select(a.source, expressions);
        // Plain columns of a table the reader may read whole, without row-level
        // security, are read straight from the heap: the query would only project them.
        choice = choose_read(relid, a.columns, a.sensitive, {true, !generalized, true, true});
    }
    std::vector<AttrNumber> key_attnums() const { return {attnums.begin(), attnums.begin() + width}; }
    // Whether class_tally can count the sensitive value: by its canonical text in SQL, which
    // a type only C++ reads so has not (class_tally_query).
    bool tally_counts_sensitive() const { return !sensitive || !canonical_text_sql(*a.sensitive).empty(); }
    void note_peak() {
        peak = std::max(peak, pg_call([&] { return MemoryContextMemAllocated(memory, true); }));
    }
};

// A quasi-identifier with a hierarchy: the class reader's level-0 classes, each
// distinct value generalized once (audit_levels.hpp). False past the memory limit
// (an error in C++, or an ERROR from a parallel read). In parallel mode (audit()
// above a Gather) the reader runs without a subtransaction, serially: only its
// error in C++ falls back there.
bool read_by_class_reader(AuditScan& s) {
    bool read = false;
    try {
        in_subtransaction(ERRCODE_PROGRAM_LIMIT_EXCEEDED, [&] {
            AuditedLevels levels = audited_levels(s.a.source, s.a.columns, s.a.sensitive);
            s.table = std::move(levels.table);
            s.launched = levels.workers;
            read = true;
        });
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::ProgramLimit) throw;
    }
    s.streamed = Clock::now();
    return read;
}

enum class ParallelOutcome { Read, Spill, Serial };

// A table read from its heap by parallel workers that also merge in parallel
// (parallel_classes.hpp). Past privrisk.audit_memory_limit: the spilling GROUP BY,
// as the serial read would need it too. Out of shared memory or another resource
// (class 53): the serial read, with a NOTICE.
ParallelOutcome read_in_parallel(AuditScan& s, int workers) {
    Caught caught;
    bool parallel = false;
    in_subtransaction(
        parallel_read_may_fall_back,
        [&] {
            ParallelClasses read =
                parallel_class_table(s.relid, s.key_attnums(), s.sensitive ? s.a.sensitive->attnum : 0, workers);
            s.streamed = Clock::now();
            s.table = std::move(read.table);
            s.launched = read.launched;
            s.peak = read.leader_peak;
            parallel = true;
        },
        &caught);
    if (parallel) return ParallelOutcome::Read;
    if (caught.sqlstate == ERRCODE_PROGRAM_LIMIT_EXCEEDED) return ParallelOutcome::Spill;
    pg_call([&] {
        ereport(NOTICE, (errmsg("audit: the parallel read failed (%s); reading serially", caught.message.c_str())));
    });
    return ParallelOutcome::Serial;
}

// Over shards, or through SQL with workers: class_tally tallies each shard's or
// worker's rows and they are merged here. False when a tally passed the limit.
// Quasi-identifiers without a hierarchy only (the class reader reads the others).
bool read_tallies(AuditScan& s) {
    const bool sharded = !s.choice.shards.empty();
    const std::string select_tally =
        class_tally_query(sharded ? s.choice.shards : std::vector<Shard>{{s.a.source.qualified, ""}},
                          plain_columns(s.a.columns), s.a.sensitive);
    bool tallied = false;  // on a failure the lambda does not finish
    in_subtransaction(ERRCODE_PROGRAM_LIMIT_EXCEEDED, [&] {
        try {
            MergedTallies merged = merge_class_tallies(select_tally, s.width, s.bounded, [&] { s.note_peak(); });
            s.streamed = Clock::now();
            s.table = ContingencyTable::from_canonical_parts(std::move(merged.values.values), {merged.part});
            tallied = true;
        } catch (const MemoryLimitExceeded&) {  // merging here, past the limit
        }
    });
    s.note_peak();
    return tallied;
}

// One process, from the heap (`direct`) or through SQL, into a class aggregation;
// other sessions follow it in privrisk.progress (rows read of the planner's
// estimate). False past the limit.
bool read_serially(AuditScan& s, bool direct) {
    RowsReadProgress progress("audit", s.relid);
    try {
        ClassAggregator aggregator(s.bounded, s.width);
        std::vector<Value> key(s.width);
        std::vector<std::array<char, sizeof(Datum)>> scratch(s.width);
        uint64_t rows = 0;
        auto on_row = [&](const Datum* values, const bool* nulls) {
            Value sensitive_value;
            read_class_row(s.readers, scratch, s.row_context, values, nulls, s.sensitive ? &s.sensitive_text : nullptr,
                           key.data(), &sensitive_value);
            aggregator.add(key.data(), sensitive_value);
            if (s.row_context->mem_allocated > kRowMemory)
                pg_call([&] { MemoryContextReset(s.row_context); });  // wide values
            if ((++rows & 4095) != 0) return;
            pg_call([&] { MemoryContextReset(s.row_context); });
            s.note_peak();
            progress.rows(static_cast<int64_t>(rows));
        };
        if (direct) scan_table_rows(s.relid, s.attnums, on_row);
        else stream_rows(s.select, {}, on_row);
        s.streamed = Clock::now();
        progress.finish();
        s.table = aggregator.finish();
        return true;
    } catch (const MemoryLimitExceeded&) {
        progress.finish();
        s.note_peak();
        return false;
    }
}

// Past the limit: GROUP BY with hist(), which PostgreSQL spills to disk, keeping
// only the distinct class histograms; its memory is bounded too.
void read_spilling(AuditScan& s, bool tally) {
    pg_call([&] {
        MemoryContextReset(s.row_context);
        ereport(NOTICE, (errmsg("audit: %s more than %s; grouping with a spilling GROUP BY instead",
                                tally ? "a class tally needs" : "the classes need", audit_memory_setting())));
    });
    // The GROUP BY's memory by a share of privrisk.memory_limit (whatever work_mem the
    // caller set), each hist() state and the distinct histograms by the limit.
    char work_mem_kb[16];
    std::snprintf(work_mem_kb, sizeof work_mem_kb, "%d", std::max(64, std::min(work_mem, memory_limit_kb / 8)));
    pg_call([&] {
        set_config_option("work_mem", work_mem_kb, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
        if (hash_mem_multiplier > 2.0)
            set_config_option("hash_mem_multiplier", "2", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
    });
    const SpillQuery query = spilling_group_query(s.a, s.choice.shards);
    MemoryContext histograms =
        pg_call([&] { return AllocSetContextCreate(s.memory, "privrisk audit histograms", ALLOCSET_DEFAULT_SIZES); });
    PgMemoryResource mr(histograms, memory_bound().bytes);
    within_memory_limit("audit: the distinct class histograms of its spilling GROUP BY",
                        "raise privrisk.memory_limit, or audit fewer or coarser quasi-identifiers", [&] {
                            ClassSet classes(&mr);
                            stream_rows(query.sql, query.args, [&](const Datum* values, const bool*) {
                                if (DatumGetInt64(values[1]) != 0)
                                    fail(ErrorKind::InvalidParameter,
                                         "audit: the source's rows changed between the two reads of its spilling "
                                         "GROUP BY (a view with a volatile function or TABLESAMPLE?)",
                                         "raise privrisk.audit_memory_limit, so that the class reader reads it "
                                         "once, or audit a table");
                                classes.add(hist_bytes(values[0]));
                            });
                            s.streamed = Clock::now();
                            s.note_peak();
                            s.table = classes.table();
                        });
}

}  // namespace

AuditRead read_audit_classes(const AuditSource& audited) {
    AuditScan s(audited);
    const bool direct = s.choice.heap;
    const bool sharded = !s.choice.shards.empty();
    const int workers = s.choice.workers;
    // Over shards the reader merges their level-0 class tallies and generalizes here,
    // as on one server.
    const bool by_reader = s.generalized;
    // Tallies need the sensitive value's canonical text in SQL: the types shards accept have
    // it (class_shards); for another one the read stays in C++.
    const bool tally = !by_reader && !workers && (sharded || s.choice.tally_pays) && s.tally_counts_sensitive();

    // The read's memory lives in a context of its own, so it can be measured and bounded.
    s.memory =
        pg_call([] { return AllocSetContextCreate(CurrentMemoryContext, "privrisk audit", ALLOCSET_DEFAULT_SIZES); });
    s.row_context =
        pg_call([&] { return AllocSetContextCreate(s.memory, "privrisk audit rows", ALLOCSET_DEFAULT_SIZES); });
    PgMemoryResource bounded(s.memory, audit_memory_bytes());
    s.bounded = &bounded;
    Spi spi;
    // The internal query is a plain projection: compiling it with JIT only costs time.
    // The setting is scoped to this call (an error unwinds it with the transaction).
    int guc_level = pg_call([] {
        int level = NewGUCNestLevel();
        set_config_option("jit", "off", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
        return level;
    });
    const auto started = Clock::now();
    std::string how;
    bool spilled = false;
    if (by_reader) {
        spilled = !read_by_class_reader(s);
        how = sharded ? "class tallies, level 0, by the class reader"
                      : "class reader, " + std::to_string(s.launched) + " workers";
    } else if (tally) {
        spilled = !read_tallies(s);
        how = "class tallies";
    } else {
        ParallelOutcome parallel = workers > 0 ? read_in_parallel(s, workers) : ParallelOutcome::Serial;
        if (parallel == ParallelOutcome::Read) how = "parallel aggregation, " + std::to_string(s.launched) + " workers";
        spilled =
            parallel == ParallelOutcome::Spill || (parallel == ParallelOutcome::Serial && !read_serially(s, direct));
        if (!spilled && how.empty()) how = "in-memory aggregation";
    }
    if (spilled) {
        read_spilling(s, tally);
        how = "spilling GROUP BY";
    }
    pg_call([&] { AtEOXact_GUC(true, guc_level); });
    spi.finish();
    const auto scanned = Clock::now();
    s.note_peak();
    pg_call([&] { MemoryContextDelete(s.memory); });
    auto ms = [](Clock::time_point a, Clock::time_point b) {
        return std::chrono::duration<double, std::milli>(b - a).count();
    };
    return AuditRead{std::move(s.table), how, s.peak, ms(started, s.streamed), ms(s.streamed, scanned)};
}

}  // namespace privrisk::pg
