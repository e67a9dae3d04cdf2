// Parallel class tallies (parallel_classes.hpp): one ParallelContext, a
// parallel heap scan, and a dynamic shared memory area for the tallies' byte
// forms. Every participant (the leader and each worker that starts in time)
// runs the same two phases, separated by a barrier:
//   0. tally the blocks it is given (ClassAggregator, binary keys), then put
//      its sensitive values and, per task, its run of that task's classes
//      (sorted by class hash and key bytes) in the area;
//   1. take tasks one at a time and merge that task's runs from every
//      participant in one pass (class_runs.hpp) into finished classes, put in
//      the area as a part of the contingency table.
// The leader then reads the parts. A worker that starts after phase 0 only
// merges, one that starts later does nothing; an error in any participant
// reaches the leader, whose abort stops the others.
#include "classes/parallel_classes.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <functional>
#include <string>
#include <string_view>

#include "classes/class_aggregator.hpp"
#include "classes/class_runs.hpp"
#include "common/byte_form.hpp"
#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/memory.hpp"
#include "common/parallel_workers.hpp"
#include "common/row_stream.hpp"
#include "common/source_columns.hpp"
#include "common/value_text.hpp"
#include "classes/class_memory.hpp"

extern "C" {
#include "port/atomics.h"
#include "storage/barrier.h"
#include "storage/lwlock.h"
#include "storage/shm_toc.h"
#include "utils/dsa.h"
#include "utils/lsyscache.h"
#include "utils/rel.h"
#include "utils/snapmgr.h"
#include "utils/wait_event.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace {

constexpr uint64 kKeyShared = UINT64CONST(0x5052495652534b01);
constexpr uint64 kKeyScan = UINT64CONST(0x5052495652534b02);
constexpr uint64 kKeyArea = UINT64CONST(0x5052495652534b03);
// Tasks: enough that the participants finish phase 1 together.
constexpr uint32 kTasks = 32;
static_assert(kTasks <= ClassAggregator::kMaxTasks);

// What the merged parts are: a contingency table's classes (audit), distinct
// tuples with counts (identification), or classes with their keys (search).
enum ReadMode : int32 { kClasses, kTuples, kKeyedClasses };

// In the segment: this, then the byte forms' addresses (the sensitive values
// per slot, each slot's runs by task, each task's merged part). A slot is a
// participant of phase 0.
struct Shared {
    Oid relid;
    int32 width;           // keys
    int32 slots;           // the leader and every worker
    AttrNumber sensitive;  // 0: none
    int32 mode;            // what phase 1 makes: a ReadMode
    Size limit;            // bytes each participant may hold
    pg_atomic_uint32 next_slot;
    pg_atomic_uint32 next_task;
    Barrier barrier;
    AttrNumber keys[FLEXIBLE_ARRAY_MEMBER];
};

Size addresses_offset(int width) { return MAXALIGN(offsetof(Shared, keys) + sizeof(AttrNumber) * width); }
Size shared_size(int width, int slots) {
    return addresses_offset(width) + sizeof(dsa_pointer) * (slots + std::size_t(slots) * kTasks + kTasks);
}
dsa_pointer* values_of(Shared* s) {
    return reinterpret_cast<dsa_pointer*>(reinterpret_cast<char*>(s) + addresses_offset(s->width));
}
dsa_pointer* tasks_of(Shared* s, int slot) { return values_of(s) + s->slots + std::size_t(slot) * kTasks; }
dsa_pointer* parts_of(Shared* s) { return values_of(s) + s->slots + std::size_t(s->slots) * kTasks; }

// Room for a byte form of n bytes in the area, behind its length. Past the
// area's limit it is the memory limit's error.
char* place(dsa_area* area, uint64 n, Size limit, dsa_pointer* p) {
    const Size size = sizeof(uint64) + n;
    *p = pg_call([&] { return dsa_allocate_extended(area, size, DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM); });
    if (!DsaPointerIsValid(*p)) throw MemoryLimitExceeded{size, limit};
    char* at = static_cast<char*>(pg_call([&] { return dsa_get_address(area, *p); }));
    std::memcpy(at, &n, sizeof n);
    return at + sizeof n;
}

dsa_pointer store(dsa_area* area, const std::string& bytes, Size limit) {
    dsa_pointer p;
    std::memcpy(place(area, bytes.size(), limit, &p), bytes.data(), bytes.size());
    return p;
}

std::string_view load(dsa_area* area, dsa_pointer p) {
    const char* at = static_cast<const char*>(pg_call([&] { return dsa_get_address(area, p); }));
    uint64 n;
    std::memcpy(&n, at, sizeof n);
    return std::string_view(at + sizeof n, n);
}

// Phase 0 for one participant: its blocks' classes, in byte forms in the area.
// Returns the most memory its tally held.
Size tally_blocks(Shared* s, dsa_area* area, ParallelTableScanDesc scan, MemoryContext memory) {
    const int slot = static_cast<int>(pg_atomic_fetch_add_u32(&s->next_slot, 1));
    if (slot >= s->slots) fail(ErrorKind::Internal, "more parallel class participants than slots");
    const std::size_t width = static_cast<std::size_t>(s->width);
    std::vector<AttrNumber> columns(s->keys, s->keys + width);
    if (s->sensitive) columns.push_back(s->sensitive);
    std::vector<ClassKeyReader> readers;
    for (std::size_t i = 0; i < width; ++i)
        readers.push_back(ClassKeyReader::for_type(pg_call([&] { return get_atttype(s->relid, s->keys[i]); })));
    MemoryContext row_context = pg_call(
        [&] { return AllocSetContextCreate(memory, "privrisk parallel classes rows", ALLOCSET_DEFAULT_SIZES); });
    ValueText sensitive_text{};
    if (s->sensitive)
        pg_call([&] { init_value_text(&sensitive_text, get_atttype(s->relid, s->sensitive), memory, true); });
    PgMemoryResource bounded(memory, s->limit);
    ClassAggregator aggregator(&bounded, width);
    std::vector<Value> key(width);
    std::vector<std::array<char, sizeof(Datum)>> scratch(width);
    scan_table_rows(
        s->relid, columns,
        [&](const Datum* values, const bool* nulls) {
            Value sensitive;
            read_class_row(readers, scratch, row_context, values, nulls, s->sensitive ? &sensitive_text : nullptr,
                           key.data(), &sensitive);
            aggregator.add(key.data(), sensitive);
            if ((aggregator.rows() & 4095) == 0 || row_context->mem_allocated > kRowMemory)
                pg_call([&] { MemoryContextReset(row_context); });
        },
        scan);
    // Area memory is counted apart from the aggregator's, so both stay within their limits.
    for (uint32 t = 0; t < kTasks; ++t)  // written straight into the area
        aggregator.serialize_run(t, kTasks,
                                 [&](std::size_t n) { return place(area, n, s->limit, &tasks_of(s, slot)[t]); });
    values_of(s)[slot] = store(area, aggregator.serialize_sensitive(), s->limit);  // last: marks the slot complete
    return pg_call([&] { return MemoryContextMemAllocated(memory, true); });
}

// The complete slots' sensitive values, and the canonical order of all of them.
RunValues slots_values(Shared* s, dsa_area* area, std::vector<int>* slots) {
    std::vector<std::string_view> sensitive;
    for (int slot = 0; slot < s->slots; ++slot)
        if (DsaPointerIsValid(values_of(s)[slot])) {
            slots->push_back(slot);
            sensitive.push_back(load(area, values_of(s)[slot]));
        }
    return run_values(sensitive);
}

// Phase 1: whole tasks, each task's runs from every complete slot merged in one
// pass. Returns the slots' values, which the leader's collect takes too.
RunValues merge_tasks(Shared* s, dsa_area* area) {
    std::vector<int> slots;
    RunValues values = slots_values(s, area, &slots);
    std::vector<std::string_view> runs;
    for (;;) {
        uint32 t = pg_atomic_fetch_add_u32(&s->next_task, 1);
        if (t >= kTasks) return values;
        pg_call([] { CHECK_FOR_INTERRUPTS(); });
        runs.clear();
        for (int slot : slots) runs.push_back(load(area, tasks_of(s, slot)[t]));
        parts_of(s)[t] = store(area,
                               s->mode == kTuples    ? merge_tuple_runs(runs)
                               : s->mode == kClasses ? merge_class_runs(runs, values)
                                                     : merge_keyed_runs(runs, values),
                               s->limit);
    }
}

// The memory limit as an ERROR (SQLSTATE 54000): audit()'s, which it falls back
// from, or identification's.
template <typename F>
void within_read_limit(const Shared* s, F&& f) {
    if (s->mode == kTuples)
        within_limit("privrisk.memory_limit", "identification: the distinct tuples of a parallel read",
                     "raise it, or identify over fewer or coarser columns", f);
    else if (s->mode == kKeyedClasses)
        within_limit("privrisk.memory_limit", "search: the level-0 classes of a parallel read",
                     "raise it, or search fewer quasi-identifiers", f);
    else
        within_limit("privrisk.audit_memory_limit", "audit: the classes of a parallel read",
                     "raise privrisk.audit_memory_limit (audit() falls back to GROUP BY meanwhile)", f);
}

MemoryContext participant_context() {
    return pg_call([] {
        return AllocSetContextCreate(CurrentMemoryContext, "privrisk parallel classes", ALLOCSET_DEFAULT_SIZES);
    });
}

}  // namespace

extern "C" PGDLLEXPORT void privrisk_parallel_classes_worker(dsm_segment* seg, shm_toc* toc);

void privrisk_parallel_classes_worker(dsm_segment* seg, shm_toc* toc) {
    guarded([&] {
        auto* s = static_cast<Shared*>(pg_call([&] { return shm_toc_lookup(toc, kKeyShared, false); }));
        auto* scan = static_cast<ParallelTableScanDesc>(pg_call([&] { return shm_toc_lookup(toc, kKeyScan, false); }));
        dsa_area* area = pg_call([&] { return dsa_attach_in_place(shm_toc_lookup(toc, kKeyArea, false), seg); });
        int phase = pg_call([&] { return BarrierAttach(&s->barrier); });
        MemoryContext memory = participant_context();
        within_read_limit(s, [&] {
            if (phase == 0) {
                tally_blocks(s, area, scan, memory);
                pg_call([&] { BarrierArriveAndWait(&s->barrier, PG_WAIT_EXTENSION); });
                phase = 1;
            }
            if (phase == 1) merge_tasks(s, area);
        });
        pg_call([&] {
            if (phase <= 1) BarrierArriveAndDetach(&s->barrier);
            else BarrierDetach(&s->barrier);
            MemoryContextDelete(memory);
            dsa_detach(area);
        });
    });
}

namespace privrisk::pg {

namespace {

bool output_parallel_safe(Oid type) {
    return pg_call([&] {
        Oid output;
        bool varlena;
        getTypeOutputInfo(type, &output, &varlena);
        return func_parallel(output) == PROPARALLEL_SAFE;
    });
}

}  // namespace

int parallel_class_workers(Oid relid, const std::vector<AttrNumber>& keys, AttrNumber sensitive) {
    for (AttrNumber key : keys) {
        const Oid type = pg_call([&] { return get_atttype(relid, key); });
        if (ClassKeyReader::for_type(type).kind == ClassKeyReader::kOutput) return 0;
        // Callers make a by-value key's text with its output function while the read is in
        // parallel mode: a function not marked parallel safe keeps the serial read.
        if (!output_parallel_safe(type)) return 0;
    }
    // Each process takes the sensitive value's canonical text, through its type's output
    // function unless it is a string or a date (value_text.hpp).
    if (sensitive) {
        const Oid type = pg_call([&] { return get_atttype(relid, sensitive); });
        if (pg_call([&] { return value_text_kind(type); }) == ValueText::Output && !output_parallel_safe(type))
            return 0;
    }
    return parallel_scan_workers(relid);
}

namespace {

struct ReadDone {
    int launched = 0;
    Size leader_peak = 0;
};

// The two phases, with the leader taking part; then collect(parts, values) in the leader.
ReadDone parallel_read(Oid relid, const std::vector<AttrNumber>& keys, AttrNumber sensitive, int workers, ReadMode mode,
                       Size limit,
                       const std::function<void(const std::vector<std::string_view>&, const RunValues&)>& collect) {
    const int width = static_cast<int>(keys.size());
    const int slots = workers + 1;
    ParallelContext* pcxt = nullptr;
    Shared* s = nullptr;
    ParallelTableScanDesc scan = nullptr;
    dsa_area* area = nullptr;
    pg_call([&] {
        EnterParallelMode();
        pcxt = CreateParallelContext("privrisk", "privrisk_parallel_classes_worker", workers);
        Relation r = table_open(relid, AccessShareLock);
        Size scan_size = table_parallelscan_estimate(r, GetActiveSnapshot());
        shm_toc_estimate_chunk(&pcxt->estimator, shared_size(width, slots));
        shm_toc_estimate_chunk(&pcxt->estimator, scan_size);
        shm_toc_estimate_chunk(&pcxt->estimator, dsa_minimum_size());
        shm_toc_estimate_keys(&pcxt->estimator, 3);
        InitializeParallelDSM(pcxt);
        s = static_cast<Shared*>(shm_toc_allocate(pcxt->toc, shared_size(width, slots)));
        std::memset(s, 0, shared_size(width, slots));
        s->relid = relid;
        s->width = width;
        s->slots = slots;
        s->sensitive = sensitive;
        s->mode = mode;
        s->limit = limit;
        for (int i = 0; i < width; ++i) s->keys[i] = keys[i];
        for (std::size_t i = 0; i < std::size_t(slots) * (kTasks + 1) + kTasks; ++i)
            values_of(s)[i] = InvalidDsaPointer;
        pg_atomic_init_u32(&s->next_slot, 0);
        pg_atomic_init_u32(&s->next_task, 0);
        BarrierInit(&s->barrier, 0);
        scan = static_cast<ParallelTableScanDesc>(shm_toc_allocate(pcxt->toc, scan_size));
        table_parallelscan_initialize(r, scan, GetActiveSnapshot());
        table_close(r, NoLock);
        void* space = shm_toc_allocate(pcxt->toc, dsa_minimum_size());
        area = dsa_create_in_place(space, dsa_minimum_size(), LWTRANCHE_PARALLEL_QUERY_DSA, pcxt->seg);
        dsa_set_size_limit(area, limit * slots);
        shm_toc_insert(pcxt->toc, kKeyShared, s);
        shm_toc_insert(pcxt->toc, kKeyScan, scan);
        shm_toc_insert(pcxt->toc, kKeyArea, space);
        BarrierAttach(&s->barrier);  // before any worker: phase 0 waits for the leader
        LaunchParallelWorkers(pcxt);
    });
    // The leader always reads too (parallel_leader_participation is for Gather):
    // the workers that attach in phase 0 may be none, and the read must be whole.
    MemoryContext memory = participant_context();
    Size peak = 0;
    RunValues values;  // every slot's, as complete after phase 0
    try {
        within_read_limit(s, [&] {
            peak = tally_blocks(s, area, scan, memory);
            pg_call([&] { BarrierArriveAndWait(&s->barrier, PG_WAIT_EXTENSION); });
            values = merge_tasks(s, area);
        });
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::ProgramLimit) throw;
        // The leader's own limit as a PostgreSQL error, as a worker's arrives (audit()'s
        // subtransaction falls back on 54000).
        std::string message = e.what();
        pg_call([&] { ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED), errmsg("%s", message.c_str()))); });
    }
    pg_call([&] {
        BarrierArriveAndWait(&s->barrier, PG_WAIT_EXTENSION);  // every task is merged
        BarrierDetach(&s->barrier);
    });
    // Put together while the workers exit.
    ReadDone done{pcxt->nworkers_launched, peak};
    std::vector<std::string_view> parts;
    for (uint32 t = 0; t < kTasks; ++t) parts.push_back(load(area, parts_of(s)[t]));
    collect(parts, values);
    pg_call([&] {
        WaitForParallelWorkersToFinish(pcxt);
        MemoryContextDelete(memory);
        dsa_detach(area);
        DestroyParallelContext(pcxt);
        ExitParallelMode();
    });
    return done;
}

}  // namespace

ParallelClasses parallel_class_table(Oid relid, const std::vector<AttrNumber>& keys, AttrNumber sensitive,
                                     int workers) {
    ParallelClasses result;
    ReadDone done = parallel_read(relid, keys, sensitive, workers, kClasses, audit_memory_bytes(),
                                  [&](const std::vector<std::string_view>& parts, const RunValues& values) {
                                      result.table = ContingencyTable::from_canonical_parts(values.values, parts);
                                  });
    result.launched = done.launched;
    result.leader_peak = done.leader_peak;
    return result;
}

int parallel_tuple_table(Oid relid, const std::vector<AttrNumber>& keys, int workers, Size limit,
                         const std::function<void(uint64_t)>& on_tuples,
                         const std::function<void(std::string_view, int64_t)>& on_tuple) {
    ReadDone done = parallel_read(relid, keys, 0, workers, kTuples, limit,
                                  [&](const std::vector<std::string_view>& parts, const RunValues&) {
                                      uint64_t tuples = 0;
                                      for (std::string_view part : parts)
                                          tuples += ByteReader{part, "a tuple part"}.get<uint64_t>();
                                      on_tuples(tuples);
                                      for (std::string_view part : parts) {
                                          ByteReader r{part, "a tuple part"};
                                          for (uint64_t n = r.get<uint64_t>(); n > 0; --n) {
                                              std::string_view key = r.bytes(r.get<uint32_t>());
                                              on_tuple(key, r.get<int64_t>());
                                          }
                                          if (!r.in.empty())
                                              fail(ErrorKind::Internal, "a tuple part has trailing bytes");
                                      }
                                  });
    return done.launched;
}

int parallel_keyed_classes(
    Oid relid, const std::vector<AttrNumber>& keys, AttrNumber sensitive, int workers, Size limit,
    const std::function<void(const std::vector<std::optional<std::string>>&)>& on_values,
    const std::function<void(std::string_view, const ContingencyTable::Pair*, std::size_t)>& on_class) {
    ReadDone done = parallel_read(relid, keys, sensitive, workers, kKeyedClasses, limit,
                                  [&](const std::vector<std::string_view>& parts, const RunValues& values) {
                                      on_values(values.values);
                                      for (std::string_view part : parts)
                                          for_each_keyed_class(part, values.values.size(), on_class);
                                  });
    return done.launched;
}

bool parallel_read_may_fall_back(int sqlstate) {
    return sqlstate == ERRCODE_PROGRAM_LIMIT_EXCEEDED ||
           ERRCODE_TO_CATEGORY(sqlstate) == ERRCODE_INSUFFICIENT_RESOURCES;
}

std::string_view key_value_text(ValueText* text, bool by_value, std::string_view bytes, MemoryContext context) {
    if (!by_value) return bytes;
    Datum d = 0;
    std::memcpy(&d, bytes.data(), std::min(bytes.size(), sizeof d));
    return pg_call([&] {
        MemoryContext old = MemoryContextSwitchTo(context);
        std::string_view t = value_text(text, d);
        MemoryContextSwitchTo(old);
        return t;
    });
}

}  // namespace privrisk::pg
