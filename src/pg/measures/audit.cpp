// privrisk.audit (docs/measures.md): every applicable measure of one release in one
// scan of the source. The rows stream into a C++ hash aggregation (class key
// -> sensitive counts) whose memory is bounded by privrisk.audit_memory_limit;
// past it, the audit falls back to GROUP BY with hist(), which PostgreSQL
// spills to disk, and keeps only the distinct class histograms.
#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <chrono>
#include <cmath>
#include <string>
#include <vector>

#include "common/activity_progress.hpp"
#include "common/progress.hpp"
#include "common/args.hpp"
#include "hierarchy/hierarchy_coverage.hpp"
#include "classes/class_memory.hpp"
#include "measures/audit_levels.hpp"
#include "measures/measure_registry.hpp"
#include "classes/class_aggregator.hpp"
#include "classes/class_query.hpp"
#include "classes/parallel_classes.hpp"
#include "ck/ck_safety.hpp"
#include "classes/class_set.hpp"
#include "common/error.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "classes/hist_type.hpp"
#include "common/json_text.hpp"
#include "measures/measures.hpp"
#include "common/memory.hpp"
#include "common/row_stream.hpp"
#include "common/source_columns.hpp"

extern "C" {
#include "access/relation.h"
#include "optimizer/cost.h"
#include "optimizer/paths.h"
#include "storage/bufmgr.h"
#include "utils/guc.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/syscache.h"
#include "catalog/pg_statistic.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// Whether parallel workers pay for the tallies' byte forms, when workers are
// allowed: on a table of at least three times min_parallel_table_scan_size
// (where the planner starts giving two workers) or a partitioned one, whose
// classes are few against its rows. Each worker's partial tally holds most of
// the classes and merging costs a pass over each, so past one class per 64 rows
// (estimated from the columns' statistics, as if independent; none: no) the
// serial scan is faster (docs/scale-out.md).
bool parallel_tally_pays(Oid relid, const std::vector<AttrNumber>& class_columns) {
    return pg_call([&] {
        if (max_parallel_workers_per_gather <= 0 || max_parallel_workers <= 0) return false;
        char kind = get_rel_relkind(relid);
        if (kind != RELKIND_PARTITIONED_TABLE && kind != RELKIND_RELATION && kind != RELKIND_MATVIEW) return false;
        Relation r = relation_open(relid, AccessShareLock);
        double rows = r->rd_rel->reltuples;
        BlockNumber blocks = kind == RELKIND_PARTITIONED_TABLE ? 0 : RelationGetNumberOfBlocks(r);
        relation_close(r, AccessShareLock);
        if (kind != RELKIND_PARTITIONED_TABLE && blocks < 3 * static_cast<BlockNumber>(min_parallel_table_scan_size))
            return false;
        if (rows <= 0) return false;
        double classes = 1;
        for (AttrNumber attnum : class_columns) {
            HeapTuple t = SearchSysCache3(STATRELATTINH, ObjectIdGetDatum(relid), Int16GetDatum(attnum),
                                          BoolGetDatum(kind == RELKIND_PARTITIONED_TABLE));
            if (!HeapTupleIsValid(t)) return false;
            double distinct = reinterpret_cast<Form_pg_statistic>(GETSTRUCT(t))->stadistinct;
            ReleaseSysCache(t);
            if (distinct == 0) return false;
            classes *= distinct < 0 ? -distinct * rows : distinct;
        }
        return classes * 64 <= rows;
    });
}

}  // namespace

// The body of audit_classes(), below.
static Datum audit_classes(FunctionCallInfo fcinfo) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "source must not be NULL");
    Oid relid = PG_GETARG_OID(0);
    auto qi = text_array_arg_values(fcinfo, 1, "quasi_identifiers", false);
    std::optional<std::string> sensitive;
    if (!PG_ARGISNULL(2)) sensitive = std::string(text_view(PG_GETARG_DATUM(2)));
    auto hierarchies = text_array_arg_values(fcinfo, 3, "hierarchies", true);
    std::vector<long> levels;
    if (!PG_ARGISNULL(4)) levels = int4_array_arg_values(fcinfo, 4, "levels");
    double threshold = PG_ARGISNULL(5) ? 0.2 : PG_GETARG_FLOAT8(5);
    double c = PG_ARGISNULL(6) ? 3.0 : PG_GETARG_FLOAT8(6);
    std::optional<std::string> sensitive_hierarchy;
    if (!PG_ARGISNULL(7)) sensitive_hierarchy = std::string(text_view(PG_GETARG_DATUM(7)));
    int kmax = PG_NARGS() > 8 && !PG_ARGISNULL(8) ? PG_GETARG_INT32(8) : 10;
    check_threshold(threshold);
    check_c(c);
    check_ck_k(kmax);

    // The relation and its columns; names are quoted, never spliced.
    SourceRelation source = source_relation(relid);
    std::vector<ClassColumn> columns = class_columns(source, qi, hierarchies, levels);
    std::optional<SourceColumn> sensitive_column;
    if (sensitive) sensitive_column = source_column(source, *sensitive, "sensitive");
    std::vector<AttrNumber> attnums;  // of the columns read, in the query's order
    std::vector<ClassKeyReader> readers;
    std::vector<std::string> expressions;  // what the query selects, one per column
    std::vector<SpiArg> args;
    for (const ClassColumn& column : columns) {
        attnums.push_back(column.column.attnum);
        if (column.hierarchy) {
            args.push_back(text_arg(*column.hierarchy));
            args.push_back(int4_arg(column.level));
            expressions.push_back("privrisk.gen(" + column.column.quoted + ", $" + std::to_string(args.size() - 1) +
                                  ", $" + std::to_string(args.size()) + ")");
            readers.push_back(ClassKeyReader::for_type(TEXTOID));
        } else {
            expressions.push_back(column.column.quoted);  // read in its binary form where that identifies the displayed value
            readers.push_back(ClassKeyReader::for_type(column.column.type));
        }
    }
    Oid column_type = columns.back().column.type;
    if (sensitive_column) {
        attnums.push_back(sensitive_column->attnum);
        column_type = sensitive_column->type;
    }
    if (sensitive) expressions.push_back("(" + sensitive_column->quoted + ")::pg_catalog.text");
    const std::string select = source_select(source, expressions);
    const std::size_t width = qi.size();
    // Plain columns of a table the reader may read whole, without row-level
    // security, are read straight from the heap: the query would only project them.
    bool plain = args.empty() && (!sensitive || column_type == TEXTOID || column_type == VARCHAROID);
    bool direct = plain && readable_from_heap(relid);
    // Over shards (foreign partitions), each server tallies its own rows into classes.
    std::vector<Shard> shards = class_shards(relid, columns, sensitive_column);

    // The scan. Its memory lives in a context of its own, so it can be measured and bounded.
    MemoryContext memory = pg_call([] {
        return AllocSetContextCreate(CurrentMemoryContext, "privrisk audit", ALLOCSET_DEFAULT_SIZES);
    });
    MemoryContext row_context = pg_call([&] {
        return AllocSetContextCreate(memory, "privrisk audit rows", ALLOCSET_DEFAULT_SIZES);
    });
    PgMemoryResource bounded(memory, audit_memory_bytes());  // the in-memory aggregation: refused past the limit
    Size peak = 0;
    ContingencyTable table;
    Spi spi;
    // The internal query is a plain projection: compiling it with JIT only costs time.
    // The setting is scoped to this call (an error unwinds it with the transaction).
    int guc_level = pg_call([] {
        int level = NewGUCNestLevel();
        set_config_option("jit", "off", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
        return level;
    });
    // Over shards, or on a table large enough for parallel workers: class_tally
    // tallies each shard's or worker's rows and they are merged here. A tally
    // past privrisk.audit_memory_limit falls back to the spilling GROUP BY.
    const bool sharded = !shards.empty();
    const std::vector<AttrNumber> key_attnums(attnums.begin(), attnums.begin() + width);
    // A table read from its heap is read by parallel workers that also merge in
    // parallel (parallel_classes.hpp), whatever the classes per row.
    const int workers = direct ? parallel_class_workers(relid, key_attnums) : 0;
    // A quasi-identifier with a hierarchy, here: the class reader's level-0 classes,
    // each distinct value generalized once (audit_levels.hpp). A sensitive column of
    // another type than text keeps the read through SQL, whose ::text it counts by.
    const bool by_reader = !args.empty() && !sharded && (!sensitive || column_type == TEXTOID || column_type == VARCHAROID);
    const bool tally = !by_reader && !workers && (sharded || parallel_tally_pays(relid, key_attnums));
    bool spilled = false, tallied = false, parallel = false, leveled = false;
    int launched = 0;
    auto started = std::chrono::steady_clock::now();
    auto streamed = started;
    bool serial = !tally && !workers && !by_reader;
    if (by_reader) {
        // Past the memory limit (an error in C++, or an ERROR from a parallel read): the spilling GROUP BY.
        try {
            in_subtransaction(ERRCODE_PROGRAM_LIMIT_EXCEEDED, [&] {
                AuditedLevels read = audited_levels(source, columns, sensitive_column);
                table = std::move(read.table);
                launched = read.workers;
                leveled = true;
            });
        } catch (const Error& e) {
            if (e.kind() != ErrorKind::ProgramLimit) throw;
        }
        streamed = std::chrono::steady_clock::now();
        spilled = !leveled;
    }
    if (workers > 0) {
        // Past privrisk.audit_memory_limit: the spilling GROUP BY, as the serial read would
        // need it too. Out of shared memory or another resource (class 53): the serial read.
        Caught caught;
        in_subtransaction(parallel_read_may_fall_back, [&] {
            ParallelClasses read = parallel_class_table(relid, key_attnums, sensitive ? sensitive_column->attnum : 0, workers);
            streamed = std::chrono::steady_clock::now();
            table = std::move(read.table);
            launched = read.launched;
            peak = read.leader_peak;
            parallel = true;
        }, &caught);
        spilled = !parallel && caught.sqlstate == ERRCODE_PROGRAM_LIMIT_EXCEEDED;
        serial = !parallel && !spilled;
        if (serial) {
            pg_call([&] {
                ereport(NOTICE, (errmsg("audit: the parallel read failed (%s); reading serially", caught.message.c_str())));
            });
        }
    }
    if (tally) {
        const std::string sensitive_text = sensitive ? expressions.back() : std::string("NULL::pg_catalog.text");
        std::string select_tally;
        for (const Shard& part : sharded ? shards : std::vector<Shard>{{source.qualified, ""}}) {
            select_tally += (select_tally.empty() ? "SELECT privrisk.class_tally(" : " UNION ALL SELECT privrisk.class_tally(") +
                            sensitive_text;
            for (const std::string& k : class_key_expressions(columns, part.server, sharded)) select_tally += ", " + k;
            select_tally += ") FROM " + part.qualified;
        }
        // On a failure the lambda does not finish and `tallied` stays false.
        in_subtransaction(ERRCODE_PROGRAM_LIMIT_EXCEEDED, [&] {
            try {
                ClassAggregator merged(&bounded, width);
                stream_rows(select_tally, {}, [&](const Datum* values, const bool* nulls) {
                    if (!nulls[0]) merged.merge_serialized(text_view(values[0]));
                });
                streamed = std::chrono::steady_clock::now();
                table = merged.finish();
                tallied = true;
            } catch (const MemoryLimitExceeded&) {  // merging here, past the limit
            }
        });
        peak = std::max(peak, MemoryContextMemAllocated(memory, true));
        spilled = !tallied;
    }
    // Other sessions follow the serial scan in privrisk.progress: rows read of the planner's estimate.
    ActivityProgress activity("audit");
    if (serial) try {
        ClassAggregator aggregator(&bounded, width);
        std::vector<Value> key(width);
        std::vector<std::array<char, sizeof(Datum)>> scratch(width);
        uint64_t rows = 0;
        const double estimate = pg_call([&] {
            HeapTuple t = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
            double n = HeapTupleIsValid(t) ? reinterpret_cast<Form_pg_class>(GETSTRUCT(t))->reltuples : -1;
            if (HeapTupleIsValid(t)) ReleaseSysCache(t);
            return n;
        });
        auto scan_started = std::chrono::steady_clock::now(), last_shown = scan_started;
        auto on_row = [&](const Datum* values, const bool* nulls) {
            Value s;
            read_class_row(readers, scratch, row_context, values, nulls, sensitive.has_value(), key.data(), &s);
            aggregator.add(key.data(), s);
            if (row_context->mem_allocated > kRowMemory) pg_call([&] { MemoryContextReset(row_context); });  // wide values
            if ((++rows & 4095) == 0) {
                pg_call([&] { MemoryContextReset(row_context); });
                peak = std::max(peak, MemoryContextMemAllocated(memory, true));
                auto now = std::chrono::steady_clock::now();
                if (now - last_shown >= std::chrono::milliseconds(100)) {
                    last_shown = now;
                    int64_t done = static_cast<int64_t>(rows);
                    // Past the estimate (or without one), the total is what was read so far.
                    int64_t total = std::max<int64_t>(done, static_cast<int64_t>(estimate));
                    activity.show(Progress{done, total, std::chrono::duration<double>(now - scan_started).count()}
                                      .text("rows read", ""));
                }
            }
        };
        if (direct)
            scan_table_rows(relid, attnums, on_row);
        else
            stream_rows(select, args, on_row);
        streamed = std::chrono::steady_clock::now();
        activity.finish();
        table = aggregator.finish();
    } catch (const MemoryLimitExceeded&) {
        activity.finish();
        peak = std::max(peak, MemoryContextMemAllocated(memory, true));
        spilled = true;
    }
    if (spilled) {
        pg_call([&] {
            MemoryContextReset(row_context);
            ereport(NOTICE, (errmsg("audit: %s more than %s; grouping with a spilling GROUP BY instead",
                                    tally ? "a class tally needs" : "the classes need",
                                    audit_memory_limit_kb <= memory_limit_kb ? "privrisk.audit_memory_limit"
                                                                             : "privrisk.memory_limit")));
        });
        std::string keys;
        for (std::size_t i = 0; i < width; ++i) keys += (i ? ", q" : "q") + std::to_string(i);
        std::string grouped = sharded ? class_query(source, shards, columns, sensitive_column)
                                      : std::string("SELECT privrisk.hist(") + (sensitive ? "s" : "*") + ") FROM (" +
                                            select + ") AS r(" + keys + (sensitive ? ", s" : "") + ") GROUP BY " + keys;
        // Its memory is bounded too: the GROUP BY's by a share of privrisk.memory_limit (whatever
        // work_mem the caller set), each hist() state and the distinct histograms by the limit.
        char work_mem_kb[16];
        std::snprintf(work_mem_kb, sizeof work_mem_kb, "%d", std::max(64, std::min(work_mem, memory_limit_kb / 8)));
        pg_call([&] {
            set_config_option("work_mem", work_mem_kb, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0, false);
            if (hash_mem_multiplier > 2.0)
                set_config_option("hash_mem_multiplier", "2", PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0,
                                  false);
        });
        MemoryContext histograms = pg_call([&] {
            return AllocSetContextCreate(memory, "privrisk audit histograms", ALLOCSET_DEFAULT_SIZES);
        });
        PgMemoryResource mr(histograms, memory_bound().bytes);
        within_memory_limit("audit: the distinct class histograms of its spilling GROUP BY",
                            "raise privrisk.memory_limit, or audit fewer or coarser quasi-identifiers", [&] {
            ClassSet classes(&mr);
            stream_rows(grouped, sharded ? std::vector<SpiArg>() : args,
                        [&](const Datum* values, const bool*) { classes.add(hist_bytes(values[sharded ? width : 0])); });
            streamed = std::chrono::steady_clock::now();
            peak = std::max(peak, MemoryContextMemAllocated(memory, true));
            table = classes.table();
        });
    }
    pg_call([&] { AtEOXact_GUC(true, guc_level); });
    spi.finish();
    auto scanned = std::chrono::steady_clock::now();
    peak = std::max(peak, MemoryContextMemAllocated(memory, true));

    std::string json = "{\"rows\": " + std::to_string(table.rows()) + ", \"classes\": " + std::to_string(table.classes());
    // Every measure of the registry that applies, under its one key.
    MeasureParameters params{threshold, c, nullptr};
    if (sensitive && sensitive_hierarchy) params.sensitive_hierarchy = &cached_hierarchy(*sensitive_hierarchy);
    for (const MeasureInfo& m : measure_registry()) {
        if (!m.of_table || (m.needs_sensitive && !sensitive) || (m.applies && !m.applies(table, params))) continue;
        std::optional<double> v = m.of_table(table, params);
        json += std::string(", \"") + m.key + "\": " +
                (m.integer ? json_integer(v ? std::optional<int64_t>(int64_t(*v)) : std::nullopt) : json_number(v));
    }
    if (sensitive) {
        if (table.rows() > 0) {
            std::string curve;
            for (double md : ck_disclosure_curve(table, kmax)) curve += (curve.empty() ? "" : ", ") + json_number(md);
            json += ", \"ck_disclosure_curve\": [" + curve + "]";
        }
    }
    json += "}";
    auto measured = std::chrono::steady_clock::now();
    auto ms = [](auto a, auto b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
    double scan_ms = ms(started, streamed), finish_ms = ms(streamed, scanned), measure_ms = ms(scanned, measured);
    long long rows = table.rows(), classes = table.classes();
    const std::string how = spilled ? "spilling GROUP BY"
                            : leveled ? "class reader, " + std::to_string(launched) + " workers"
                            : tallied ? "class tallies"
                            : parallel ? "parallel aggregation, " + std::to_string(launched) + " workers"
                                       : "in-memory aggregation";
    pg_call([&] {
        elog(DEBUG1, "audit: %lld rows into %lld classes: scan %.1f ms (%s, %zu kB), table %.1f ms, measures %.1f ms",
             rows, classes, scan_ms, how.c_str(), peak / 1024, finish_ms, measure_ms);
        MemoryContextDelete(memory);
    });
    return jsonb_datum(json);
}

// audit_classes(source, quasi_identifiers, sensitive, hierarchies, levels,
//               risk_threshold, l_c, sensitive_hierarchy, kmax) -> jsonb
// The SQL wrapper privrisk.audit() unpacks the options and calls this. A value
// that a hierarchy lacks fails it with one error that counts all of them.
PRIVRISK_FUNCTION(privrisk_audit_classes) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "source must not be NULL");
    SourceRelation source = source_relation(PG_GETARG_OID(0));
    std::vector<long> levels;
    if (!PG_ARGISNULL(4)) levels = int4_array_arg_values(fcinfo, 4, "levels");
    std::vector<std::pair<SourceColumn, std::string>> generalized;
    for (ClassColumn& c : class_columns(source, text_array_arg_values(fcinfo, 1, "quasi_identifiers", false),
                                        text_array_arg_values(fcinfo, 3, "hierarchies", true), levels))
        if (c.hierarchy) generalized.emplace_back(std::move(c.column), std::move(*c.hierarchy));
    Datum result = 0;
    explaining_uncovered(source, generalized, [&] { result = audit_classes(fcinfo); });
    return result;
}
