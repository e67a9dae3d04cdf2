#include "common/row_stream.hpp"

#include <algorithm>
#include <new>

#include "common/error.hpp"

extern "C" {
#include "executor/tuptable.h"
#include "tcop/dest.h"
#include "utils/snapmgr.h"
}

namespace privrisk::pg {
namespace {

struct Receiver {
    DestReceiver pub;  // first, so a DestReceiver* is a Receiver*
    const std::function<void(const Datum*, const bool*)>* on_row;
    std::exception_ptr error;
    MemoryContext caller;  // where a PostgreSQL error's data outlives the executor's memory

    bool deliver(TupleTableSlot* slot) noexcept {
        try {
            (*on_row)(slot->tts_values, slot->tts_isnull);
            return true;
        } catch (const PgError& e) {  // its data is in the executor's memory, freed before the rethrow
            try {
                error = std::make_exception_ptr(PgError(copy_error(e.data(), caller)));
            } catch (...) {  // out of memory: that error's own data would be in the executor's memory too
                error = std::make_exception_ptr(std::bad_alloc());
            }
            return false;
        } catch (...) {
            error = std::current_exception();
            return false;  // stops the executor
        }
    }
};

bool receive_slot(TupleTableSlot* slot, DestReceiver* self) {
    slot_getallattrs(slot);  // may raise a PostgreSQL ERROR: no C++ object is alive in this frame
    return reinterpret_cast<Receiver*>(self)->deliver(slot);
}
void startup(DestReceiver*, int, TupleDesc) {}
void shutdown(DestReceiver*) {}
void destroy(DestReceiver*) {}

}  // namespace

void stream_rows(const std::string& sql, const std::vector<SpiArg>& args,
                 const std::function<void(const Datum*, const bool*)>& on_row) {
    int n = static_cast<int>(args.size());
    Oid* types = static_cast<Oid*>(pg_call([&] { return palloc0(sizeof(Oid) * (n ? n : 1)); }));
    for (int i = 0; i < n; ++i) types[i] = args[i].type;
    const char* text = sql.c_str();
    SPIPlanPtr plan = nullptr;
    with_pinned_search_path([&] { plan = SPI_prepare_cursor(text, n, types, CURSOR_OPT_PARALLEL_OK); });
    if (!plan) fail(ErrorKind::Internal, std::string("could not prepare: ") + SPI_result_code_string(SPI_result));
    ParamListInfo params = pg_call([&] { return makeParamList(n); });
    for (int i = 0; i < n; ++i) {
        params->params[i].value = args[i].value;
        params->params[i].isnull = args[i].null;
        params->params[i].pflags = PARAM_FLAG_CONST;
        params->params[i].ptype = args[i].type;
    }
    Receiver receiver{};
    receiver.pub.receiveSlot = receive_slot;
    receiver.pub.rStartup = startup;
    receiver.pub.rShutdown = shutdown;
    receiver.pub.rDestroy = destroy;
    receiver.pub.mydest = DestNone;
    receiver.on_row = &on_row;
    receiver.caller = CurrentMemoryContext;
    SPIExecuteOptions options{};
    options.params = params;
    options.read_only = true;
    options.dest = &receiver.pub;
    int rc = 0;
    with_pinned_search_path([&] { rc = SPI_execute_plan_extended(plan, &options); });
    if (receiver.error) std::rethrow_exception(receiver.error);
    if (rc < 0) fail(ErrorKind::Internal, std::string("SPI failed: ") + SPI_result_code_string(rc));
}

namespace {

struct TableScan {
    Relation relation;
    const AttrNumber* columns;
    int count;
    AttrNumber last;
    Datum* values;
    bool* nulls;
    const std::function<void(const Datum*, const bool*)>* on_row;
    ParallelTableScanDesc parallel;
    std::exception_ptr error;
};

// The whole scan under one pg_call: PostgreSQL-style, holds no C++ object; the
// row callback's exceptions are caught in deliver() and end the scan.
void run_table_scan(TableScan* t) {
    TupleTableSlot* slot = table_slot_create(t->relation, nullptr);
    TableScanDesc scan = t->parallel ? table_beginscan_parallel(t->relation, t->parallel)
                                     : table_beginscan(t->relation, GetActiveSnapshot(), 0, nullptr);
    while (table_scan_getnextslot(scan, ForwardScanDirection, slot)) {
        CHECK_FOR_INTERRUPTS();
        slot_getsomeattrs(slot, t->last);
        for (int i = 0; i < t->count; ++i) {
            t->values[i] = slot->tts_values[t->columns[i] - 1];
            t->nulls[i] = slot->tts_isnull[t->columns[i] - 1];
        }
        bool ok = [](TableScan* s) noexcept {
            try {
                (*s->on_row)(s->values, s->nulls);
                return true;
            } catch (...) {
                s->error = std::current_exception();
                return false;
            }
        }(t);
        if (!ok) break;
    }
    table_endscan(scan);
    ExecDropSingleTupleTableSlot(slot);
}

}  // namespace

void scan_table_rows(Oid relid, const std::vector<AttrNumber>& columns,
                     const std::function<void(const Datum*, const bool*)>& on_row, ParallelTableScanDesc parallel) {
    TableScan t{};
    t.parallel = parallel;
    t.columns = columns.data();
    t.count = static_cast<int>(columns.size());
    for (AttrNumber a : columns) t.last = std::max(t.last, a);
    t.on_row = &on_row;
    pg_call([&] {
        t.relation = table_open(relid, AccessShareLock);
        t.values = static_cast<Datum*>(palloc0(sizeof(Datum) * (t.count ? t.count : 1)));
        t.nulls = static_cast<bool*>(palloc0(sizeof(bool) * (t.count ? t.count : 1)));
        run_table_scan(&t);
        table_close(t.relation, NoLock);
    });
    if (t.error) std::rethrow_exception(t.error);
}

}  // namespace privrisk::pg
