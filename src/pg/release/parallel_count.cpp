// Record suppression's count of the whole source, with parallel workers taking
// some of its blocks (scan_suppression_state.hpp; docs/release.md, "Record
// suppression"). A serial read through a suppressing release counts the source
// before its first row, and that count is most of what suppression costs: here
// the leader and the workers share one parallel heap scan under the query's
// snapshot, each counting the blocks it is given as count_and_decide would.
//
// A worker builds the release scan from a copy of the plan that reads no column
// (its only outputs are the quasi-identifiers' released values), counts, and
// leaves one byte form in a shared area: each quasi-identifier's values by its
// own codes, its classes by coded key with their sizes, and, when recorded, its
// blocks and each row's class. The leader takes every form into its own codes
// and, for the replay, puts the rows' classes in block order (the serial read
// that follows reads the heap from block 0, synchronized scans off).
//
// Processes that count together must release alike: each form carries the
// fingerprint of what the quasi-identifiers' values depend on (the policy and its
// source, their rules and conditions, their hierarchies' definitions, the pseudonym
// key). A worker reads privrisk's catalog under the query's snapshot, but labels
// and the relation cache through its own catalog snapshot, and the leader may have
// its policy from its cache: a worker whose fingerprint differs fails the read.
//
// Plain PostgreSQL code between the calls that may throw (behind guarded()).
#include "release/scan_suppression_state.hpp"

#include <algorithm>

#include "common/byte_form.hpp"
#include "common/parallel_workers.hpp"
#include "release/suppression_record.hpp"

extern "C" {
#include "access/parallel.h"
#include "access/tableam.h"
#include "catalog/pg_collation.h"
#include "executor/executor.h"
#include "nodes/nodeFuncs.h"
#include "optimizer/optimizer.h"
#include "storage/shm_toc.h"
#include "utils/builtins.h"
#include "utils/dsa.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
#include "miscadmin.h"
}

namespace privrisk::pg {
namespace {

constexpr uint64 kKeyShared = UINT64CONST(0x5052495652534301);
constexpr uint64 kKeyPlan = UINT64CONST(0x5052495652534302);
constexpr uint64 kKeyScan = UINT64CONST(0x5052495652534303);
constexpr uint64 kKeyArea = UINT64CONST(0x5052495652534304);
constexpr const char* kFormName = "a parallel suppression count";

struct CountShared {
    bool recording;
    int32 workers;
    Size classes_hint;  // the leader's (presize_counts)
    Size cache_limit;   // the leader's privrisk.memory_limit when its scan began
    Oid user;           // the user it began as: a cursor opened in a SECURITY DEFINER function and read
                        // outside it resolves the policy as that function's owner, so do its workers
    dsa_pointer forms[FLEXIBLE_ARRAY_MEMBER];  // per worker: its byte form, when it finished
};

bool unsafe_function(Oid function, void*) { return func_parallel(function) != PROPARALLEL_SAFE; }

bool parallel_unsafe(Node* node, void* context) {
    if (!node) return false;
    if (check_functions_in_node(node, unsafe_function, context)) return true;
    if (IsA(node, Param) || IsA(node, SubLink) || IsA(node, SubPlan)) return true;
    return expression_tree_walker(node, reinterpret_cast<bool (*)()>(reinterpret_cast<void (*)()>(parallel_unsafe)),
                                  context);
}

// The conditions the scan runs generically all call functions marked parallel
// safe (native ones call none): a worker may run them, and the leader may in parallel mode.
bool conditions_parallel_safe(const ReleaseScanState* s) {
    for (int i = 0; i < s->condition_count; ++i)
        if (s->conditions[i] && parallel_unsafe(reinterpret_cast<Node*>(s->conditions[i]->expr), nullptr)) return false;
    return true;
}

// The plan a worker builds its scan from: the same policy (by its key, already
// evaluated) and release view, no column read, no qual, no index.
char* worker_plan(const ReleaseScanState* s) {
    auto* plan = static_cast<CustomScan*>(copyObjectImpl(s->css.ss.ps.plan));
    auto* leader = reinterpret_cast<const CustomScan*>(s->css.ss.ps.plan);
    plan->scan.plan.targetlist = NIL;
    plan->scan.plan.qual = NIL;
    plan->scan.plan.initPlan = NIL;
    plan->scan.plan.lefttree = plan->scan.plan.righttree = nullptr;
    plan->custom_scan_tlist = NIL;
    List* exprs =
        list_make1(makeConst(TEXTOID, -1, DEFAULT_COLLATION_OID, -1, CStringGetTextDatum(s->policy), false, false));
    if (intVal(lthird(leader->custom_private)) > 1)
        exprs = lappend(exprs, copyObjectImpl(lsecond(leader->custom_exprs)));  // the view's mark
    plan->custom_exprs = exprs;
    plan->custom_private = list_make3(NIL, NIL, makeInteger(list_length(exprs)));
    return nodeToString(plan);
}

// Counts the blocks the parallel scan gives this process.
void count_share(ReleaseScanState* s, ParallelTableScanDesc shared) {
    TableScanDesc released = s->scan;
    s->scan = table_beginscan_parallel(s->source, shared);
    s->counting = true;
    while (table_scan_getnextslot(s->scan, ForwardScanDirection, s->source_slot)) count_source_row(s, nullptr);
    table_endscan(s->scan);
    s->scan = released;
    s->counting = false;
    ExecClearTuple(s->source_slot);
    ResetExprContext(s->css.ss.ps.ps_ExprContext);
    ScanSuppression* u = s->suppression;
    guarded([&] { count_class_batch(u); });
}

// Each key of `index` by its id.
std::vector<std::string_view> keys_by_id(const FlatIndex& index) {
    std::vector<std::string_view> keys(index.size());
    index.for_each_key([&](uint32_t id, std::string_view key) { keys[id] = key; });
    return keys;
}

// A worker's count as one byte form in the area, with its record unless `recorded`
// is false; InvalidDsaPointer when the area has no room for it. May throw; behind guarded().
dsa_pointer write_form(ScanSuppression* u, dsa_area* area, bool recorded) {
    std::vector<std::vector<std::string_view>> values;
    for (int j = 0; j < u->key_count; ++j) values.push_back(keys_by_id(*u->value_codes[j]));
    const std::vector<std::string_view> classes = keys_by_id(*u->classes);
    recorded = recorded && record_whole(u);
    Size size = sizeof(u->fingerprint) + sizeof(int64) + 1 + sizeof(uint32) + sizeof(uint32) + 2 * sizeof(uint64);
    for (const auto& column : values)
        for (std::string_view v : column) size += sizeof(uint32) + v.size();
    size += u->key_count * sizeof(uint32);
    for (std::string_view key : classes) size += sizeof(uint32) + key.size() + sizeof(int64);
    if (recorded) size += u->blocks->size() * sizeof(uint64) + u->sequence->size() * sizeof(uint32);
    dsa_pointer p =
        pg_call([&] { return dsa_allocate_extended(area, sizeof(uint64) + size, DSA_ALLOC_HUGE | DSA_ALLOC_NO_OOM); });
    if (!DsaPointerIsValid(p)) return p;
    char* at = static_cast<char*>(pg_call([&] { return dsa_get_address(area, p); }));
    auto put = [&](const void* bytes, std::size_t n) {
        if (n) std::memcpy(at, bytes, n);
        at += n;
    };
    auto put_u32 = [&](uint32 v) { put(&v, sizeof v); };
    auto put_u64 = [&](uint64 v) { put(&v, sizeof v); };
    put_u64(size);
    char* const start = at;
    put(u->fingerprint, sizeof(u->fingerprint));
    put(&u->rows, sizeof(int64));
    const char flag = recorded;
    put(&flag, 1);
    put_u32(static_cast<uint32>(u->key_count));
    for (const auto& column : values) {
        put_u32(static_cast<uint32>(column.size()));
        for (std::string_view v : column) {
            put_u32(static_cast<uint32>(v.size()));
            put(v.data(), v.size());
        }
    }
    put_u32(static_cast<uint32>(classes.size()));
    for (std::size_t c = 0; c < classes.size(); ++c) {
        put_u32(static_cast<uint32>(classes[c].size()));
        put(classes[c].data(), classes[c].size());
        put(&(*u->sizes)[c], sizeof(int64));
    }
    put_u64(recorded ? u->blocks->size() : 0);
    if (recorded) put(u->blocks->data(), u->blocks->size() * sizeof(uint64));
    put_u64(recorded ? u->sequence->size() : 0);
    if (recorded) put(u->sequence->data(), u->sequence->size() * sizeof(uint32));
    if (static_cast<Size>(at - start) != size) fail(ErrorKind::Internal, std::string(kFormName) + " was sized wrong");
    return p;
}

// A worker's form into the leader's counts; its share of the record into `shares`
// when it recorded one (else *recorded becomes false). May throw; behind guarded().
// *alike becomes false, and nothing is taken, when the worker released its rows otherwise.
void take_form(ScanSuppression* u, std::string_view form, std::vector<RecordShare>* shares, bool* recorded,
               bool* alike) {
    ByteReader r{form, kFormName};
    if (r.bytes(sizeof(u->fingerprint)) != std::string_view(u->fingerprint, sizeof(u->fingerprint))) {
        *alike = false;
        return;
    }
    u->rows += r.get<int64>();
    const bool worker_recorded = r.get<char>() != 0;
    if (r.get<uint32>() != static_cast<uint32>(u->key_count)) {  // its suppression rule changed meanwhile
        *alike = false;
        return;
    }
    std::vector<std::vector<uint32_t>> codes(u->key_count);
    for (int j = 0; j < u->key_count; ++j) {
        codes[j].push_back(0);  // NULL
        for (uint32 n = r.get<uint32>(); n > 0; --n)
            codes[j].push_back(u->value_codes[j]->find_or_add(r.bytes(r.get<uint32>())) + 1);
    }
    RecordShare share;
    const uint32 classes = r.get<uint32>();
    share.map.reserve(classes);
    // In batches, as count_class_batch looks rows up: the leader's table of classes
    // is larger than the cache, so a batch's slots are fetched together.
    constexpr uint32 kBatch = 16;
    std::vector<char> keys(std::size_t(kBatch) * u->coded_room);
    int lengths[kBatch];
    uint64_t hashes[kBatch];
    int64 sizes[kBatch];
    for (uint32 first = 0; first < classes; first += kBatch) {
        const uint32 batch = std::min(kBatch, classes - first);
        for (uint32 b = 0; b < batch; ++b) {
            ByteReader key{r.bytes(r.get<uint32>()), kFormName};
            char* const start = keys.data() + std::size_t(b) * u->coded_room;
            char* out = start;
            for (int j = 0; j < u->key_count; ++j) {
                const uint64_t code = key.varint();
                if (code >= codes[j].size())
                    fail(ErrorKind::Internal, std::string(kFormName) + " names an unknown value");
                out = put_varint(out, codes[j][code]);
            }
            if (!key.in.empty()) fail(ErrorKind::Internal, std::string(kFormName) + " has a class key too long");
            lengths[b] = static_cast<int>(out - start);
            hashes[b] = FlatIndex::hash(std::string_view(start, lengths[b]));
            u->classes->prefetch(hashes[b]);
            sizes[b] = r.get<int64>();
        }
        for (uint32 b = 0; b < batch; ++b) {
            bool added;
            std::string_view key(keys.data() + std::size_t(b) * u->coded_room, lengths[b]);
            const uint32_t id = u->classes->find_or_add_hashed(key, hashes[b], &added);
            if (added) u->sizes->push_back(0);
            (*u->sizes)[id] += sizes[b];
            share.map.push_back(id);
        }
    }
    share.blocks = r.bytes(r.get<uint64>() * sizeof(uint64));
    share.sequence = r.bytes(r.get<uint64>() * sizeof(uint32));
    if (!r.in.empty()) fail(ErrorKind::Internal, std::string(kFormName) + " has trailing bytes");
    if (!worker_recorded) *recorded = false;
    if (*recorded) shares->push_back(std::move(share));
}

// The leader's counts within privrisk.memory_limit while it takes the workers'
// forms: the record goes first, then an error (check_count_memory's). May throw; behind guarded().
void within_count_memory(const ReleaseScanState* s, ScanSuppression* u, std::vector<RecordShare>* shares,
                         bool* recorded) {
    auto held = [&] {
        Size bytes = pg_call([&] { return MemoryContextMemAllocated(u->context, true); });
        for (const RecordShare& share : *shares) bytes += share.map.capacity() * sizeof(uint32_t);
        return bytes;
    };
    if (held() <= s->cache_limit) return;
    if (*recorded) {
        *recorded = false;
        shares->clear();
        forget_sequence(u);
    }
    const Size bytes = held();
    if (bytes > s->cache_limit)
        fail(ErrorKind::ProgramLimit, pg_call([&] { return count_memory_message(u, bytes, s->cache_limit); }),
             kCountMemoryHint);
}

// The forms of the workers that ran, taken into the leader's counts and record;
// false when a worker released its rows otherwise. May throw; behind guarded().
bool take_forms(const ReleaseScanState* s, ScanSuppression* u, CountShared* shared, dsa_area* area, int launched) {
    std::vector<RecordShare> shares;
    bool recorded = record_whole(u);
    if (recorded)  // first: its rows stay where they are
        shares.push_back(
            {std::string_view(reinterpret_cast<const char*>(u->blocks->data()), u->blocks->size() * sizeof(uint64)),
             std::string_view(reinterpret_cast<const char*>(u->sequence->data()), u->sequence->size() * sizeof(uint32)),
             {}});
    for (int w = 0; w < launched; ++w) {
        if (!DsaPointerIsValid(shared->forms[w]))
            fail(ErrorKind::Internal, "a parallel suppression count worker left no count");
        const char* form = static_cast<const char*>(pg_call([&] { return dsa_get_address(area, shared->forms[w]); }));
        uint64 length;
        std::memcpy(&length, form, sizeof length);
        bool alike = true;
        take_form(u, std::string_view(form + sizeof length, length), &shares, &recorded, &alike);
        if (!alike) return false;
        within_count_memory(s, u, &shares, &recorded);
    }
    if (recorded) merge_record_shares(shares, u->sequence, u->blocks, u->run_starts);
    else forget_sequence(u);  // count_and_decide finds no whole record: the read looks classes up
    return true;
}

}  // namespace

bool count_in_parallel(ReleaseScanState* s) {
    ScanSuppression* u = s->suppression;
    EState* estate = s->css.ss.ps.state;
    if (u->histograms || s->by_tables || s->source->rd_tableam != GetHeapamTableAmRoutine() ||
        !IsMVCCSnapshot(estate->es_snapshot) || !conditions_parallel_safe(s))
        return false;
    int workers = 0;
    const Oid relid = RelationGetRelid(s->source);
    guarded([&] { workers = parallel_scan_workers(relid); });
    if (workers <= 0) return false;

    char* plan = worker_plan(s);
    EnterParallelMode();
    ParallelContext* pcxt = CreateParallelContext("privrisk", "privrisk_suppression_count_worker", workers);
    const Size shared_size = offsetof(CountShared, forms) + sizeof(dsa_pointer) * workers;
    const Size scan_size = table_parallelscan_estimate(s->source, estate->es_snapshot);
    shm_toc_estimate_chunk(&pcxt->estimator, shared_size);
    shm_toc_estimate_chunk(&pcxt->estimator, strlen(plan) + 1);
    shm_toc_estimate_chunk(&pcxt->estimator, scan_size);
    shm_toc_estimate_chunk(&pcxt->estimator, dsa_minimum_size());
    shm_toc_estimate_keys(&pcxt->estimator, 4);
    PushActiveSnapshot(estate->es_snapshot);  // the workers' catalog reads see what the leader's did
    InitializeParallelDSM(pcxt);
    PopActiveSnapshot();
    auto* shared = static_cast<CountShared*>(shm_toc_allocate(pcxt->toc, shared_size));
    shared->recording = u->recording;
    shared->workers = workers;
    shared->classes_hint = u->classes_hint;
    shared->cache_limit = s->cache_limit;
    shared->user = s->built_as;
    for (int w = 0; w < workers; ++w) shared->forms[w] = InvalidDsaPointer;
    char* plan_space = static_cast<char*>(shm_toc_allocate(pcxt->toc, strlen(plan) + 1));
    strcpy(plan_space, plan);
    auto* scan = static_cast<ParallelTableScanDesc>(shm_toc_allocate(pcxt->toc, scan_size));
    table_parallelscan_initialize(s->source, scan, estate->es_snapshot);
    void* area_space = shm_toc_allocate(pcxt->toc, dsa_minimum_size());
    dsa_area* area = dsa_create_in_place(area_space, dsa_minimum_size(), LWTRANCHE_PARALLEL_QUERY_DSA, pcxt->seg);
    dsa_set_size_limit(area, s->cache_limit);  // every worker's form: what the leader's counts take them into
    shm_toc_insert(pcxt->toc, kKeyShared, shared);
    shm_toc_insert(pcxt->toc, kKeyPlan, plan_space);
    shm_toc_insert(pcxt->toc, kKeyScan, scan);
    shm_toc_insert(pcxt->toc, kKeyArea, area_space);
    LaunchParallelWorkers(pcxt);

    // The leader counts too (the workers may be none), unless told not to, as a Gather is.
    if (parallel_leader_participation || pcxt->nworkers_launched == 0) count_share(s, scan);
    WaitForParallelWorkersToFinish(pcxt);  // a worker's error is raised here
    const int launched = pcxt->nworkers_launched;
    bool alike = true;
    guarded([&] { alike = take_forms(s, u, shared, area, launched); });
    if (!alike)
        refuse_changed_release(u->policy,
                               "the policy, a hierarchy, a label or the pseudonym key changed since the query began, "
                               "and record suppression's parallel workers would count classes its rows are not "
                               "released in");
    u->count_workers = launched;
    dsa_detach(area);
    DestroyParallelContext(pcxt);
    ExitParallelMode();
    check_count_memory(s, u);
    return true;
}

}  // namespace privrisk::pg

extern "C" PGDLLEXPORT void privrisk_suppression_count_worker(dsm_segment* seg, shm_toc* toc);

// A worker: the release scan from the leader's plan, its share of the blocks
// counted, its form left in the area for the leader.
void privrisk_suppression_count_worker(dsm_segment* seg, shm_toc* toc) {
    using namespace privrisk::pg;
    auto* shared = static_cast<CountShared*>(shm_toc_lookup(toc, kKeyShared, false));
    auto* plan = static_cast<CustomScan*>(stringToNode(static_cast<char*>(shm_toc_lookup(toc, kKeyPlan, false))));
    auto* scan = static_cast<ParallelTableScanDesc>(shm_toc_lookup(toc, kKeyScan, false));
    dsa_area* area = dsa_attach_in_place(shm_toc_lookup(toc, kKeyArea, false), seg);
    // The leader's scan was built as the user its query began as: the workers build theirs alike.
    Oid user;
    int security;
    GetUserIdAndSecContext(&user, &security);
    SetUserIdAndSecContext(shared->user, security | SECURITY_LOCAL_USERID_CHANGE);
    EState* estate = CreateExecutorState();
    MemoryContext old = MemoryContextSwitchTo(estate->es_query_cxt);
    estate->es_snapshot = GetActiveSnapshot();
    estate->es_plannedstmt = makeNode(PlannedStmt);
    estate->es_plannedstmt->commandType = CMD_SELECT;
    PlanState* state = ExecInitNode(&plan->scan.plan, estate, 0);
    auto* s = reinterpret_cast<ReleaseScanState*>(state);
    ScanSuppression* u = s->suppression;
    // The catalog changed since the leader began (its scan, not this one, is what is released).
    if (s->by_tables)
        refuse_changed_release(s->policy, "its source gained partitions or inheritance children since the query began");
    if (!u || u->histograms) refuse_changed_release(s->policy, "its record suppression changed since the query began");
    s->cache_limit = shared->cache_limit;
    if (RelationGetRelid(s->source) != scan->phs_relid)  // its policy has another source now
        refuse_changed_release(s->policy, "its source changed since the query began");
    if (ParallelWorkerNumber < 0 || ParallelWorkerNumber >= shared->workers)
        ereport(ERROR, (errcode(ERRCODE_INTERNAL_ERROR),
                        errmsg("parallel suppression count worker %d of %d", ParallelWorkerNumber, shared->workers)));
    u->recording = shared->recording;
    presize_counts(s, u, 1.3 / (shared->workers + 1), shared->classes_hint);
    if (s->guard_errors) {
        // As exec_release does: an error a generic condition raises may hold a source value.
        MemoryContext context = CurrentMemoryContext;
        PG_TRY();
        { count_share(s, scan); }
        PG_CATCH();
        {
            if (!s->in_rules) PG_RE_THROW();
            reraise_rule_error(s, context);
        }
        PG_END_TRY();
    } else {
        count_share(s, scan);
    }
    dsa_pointer form = InvalidDsaPointer;
    guarded([&] {
        drain_class_counts(u);
        form = write_form(u, area, true);
    });
    if (!DsaPointerIsValid(form)) guarded([&] { form = write_form(u, area, false); });  // without its record
    if (!DsaPointerIsValid(form))
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("release of policy %s: record suppression's class counts of a parallel worker need "
                               "more than privrisk.memory_limit (%zu kB)",
                               quote_literal_cstr(s->policy), s->cache_limit / 1024),
                        errhint("%s", kCountMemoryHint)));
    shared->forms[ParallelWorkerNumber] = form;
    ExecEndNode(state);
    ExecResetTupleTable(estate->es_tupleTable, false);  // the slots' descriptor pins, as ExecEndPlan drops them
    MemoryContextSwitchTo(old);
    FreeExecutorState(estate);
    dsa_detach(area);
    SetUserIdAndSecContext(user, security);
}
