// The privacy budget is spent in a transaction of its own, committed before
// dp_release reads a single source row.
//
// Why: a release's rows reach the client while its transaction is still open.
// Spent in that transaction, a ROLLBACK (or ROLLBACK TO SAVEPOINT, or an error
// raised after the rows were read) would undo the spend and make every
// release free. So the caller hands the request to a dynamic background worker
// and waits: the worker connects to the caller's database as the owner of
// privrisk.budget, pins search_path to pg_catalog, pg_temp, locks the budget
// row (SELECT … FOR UPDATE under READ COMMITTED: concurrent spenders queue on
// the row and each sees the others' committed spends), checks, updates the
// row, appends the ledger row and commits with synchronous_commit on. Only
// then does it write "spent" into the shared segment; the caller releases
// nothing unless it reads that status after the worker has exited.
//
// Failure directions: if the caller is cancelled or terminated while waiting,
// the worker still finishes, so the budget may be spent without rows being
// returned (the safe direction). If the worker dies, fails or cannot be
// started, the caller raises an ERROR and returns no rows. Request and result
// travel through a DSM segment whose handle is the worker's main argument.
//
// The worker's code is C-style: an ERROR longjmps through it, so it holds no
// C++ object with a destructor.
#include <cstring>

#include "dp/dp_budget.hpp"
#include "common/error.hpp"
#include "common/guard.hpp"

extern "C" {
#include "access/xact.h"
#include "access/xlog.h"
#include "pgstat.h"
#include "postmaster/bgworker.h"
#include "storage/dsm.h"
#include "storage/ipc.h"
#include "storage/latch.h"
#include "utils/guc.h"
#include "utils/snapmgr.h"
#include "utils/timestamp.h"
}

namespace {

constexpr uint32 kMagic = 0x50524255;  // "PRBU": a segment this module made
constexpr int kSlotWaitMs = 5000;      // how long to wait for a free worker slot

// The request (written by the caller before the worker starts) and the result
// (written by the worker; `status` last, after its transaction ended).
struct BudgetShared {
    uint32 magic;
    Oid database;
    Oid owner;
    Oid relid;
    double epsilon;
    double delta;
    bool is_private;
    char caller[NAMEDATALEN];
    char mechanism[64];
    Size parameters_length;  // the jsonb text follows the struct, NUL-terminated

    volatile int status;  // a SpendOutcome::Status; NoResult until the worker is done
    double budget_epsilon, budget_delta, spent_epsilon, spent_delta;
    int sqlstate;
    char message[1024];
};

char* parameters_of(BudgetShared* s) { return reinterpret_cast<char*>(s + 1); }

double column_float8(int col) {
    bool isnull;
    Datum d = SPI_getbinval(SPI_tuptable->vals[0], SPI_tuptable->tupdesc, col, &isnull);
    if (isnull) elog(ERROR, "privrisk.budget has a NULL in column %d", col);
    return DatumGetFloat8(d);
}

// Sums may exceed a budget by rounding only.
bool over(double spent, double budget) { return spent > budget * (1 + 1e-12) + 1e-300; }

// Every name is qualified and every operator spelled OPERATOR(pg_catalog.…),
// on top of the pinned search_path.
const char* const kLockBudget =
    "SELECT epsilon, delta, spent_epsilon, spent_delta FROM privrisk.budget "
    "WHERE relation OPERATOR(pg_catalog.=) $1 FOR UPDATE";
const char* const kUpdateBudget =
    "UPDATE privrisk.budget SET spent_epsilon = $2, spent_delta = $3 WHERE relation OPERATOR(pg_catalog.=) $1";
const char* const kInsertLedger =
    "INSERT INTO privrisk.budget_ledger(relation, spent_by, epsilon, delta, mechanism, parameters, private) "
    "VALUES ($1, $2::pg_catalog.name, $3, $4, $5, $6::pg_catalog.jsonb, $7)";

// One transaction: lock the row, check, spend, commit. Returns the status to
// publish once the transaction has committed.
int spend_in_transaction(BudgetShared* s) {
    SetCurrentStatementStartTimestamp();
    StartTransactionCommand();
    if (SPI_connect() != SPI_OK_CONNECT) elog(ERROR, "SPI_connect failed");
    PushActiveSnapshot(GetTransactionSnapshot());
    pgstat_report_activity(STATE_RUNNING, kLockBudget);

    Oid types[7] = {REGCLASSOID, FLOAT8OID, FLOAT8OID};
    Datum values[7] = {ObjectIdGetDatum(s->relid)};
    int status;
    if (SPI_execute_with_args(kLockBudget, 1, types, values, nullptr, false, 0) != SPI_OK_SELECT)
        elog(ERROR, "privrisk: could not read the budget");
    if (SPI_processed == 0) {
        status = privrisk::pg::SpendOutcome::NoBudget;
    } else {
        s->budget_epsilon = column_float8(1);
        s->budget_delta = column_float8(2);
        s->spent_epsilon = column_float8(3);
        s->spent_delta = column_float8(4);
        const double new_epsilon = s->spent_epsilon + s->epsilon, new_delta = s->spent_delta + s->delta;
        if (over(new_epsilon, s->budget_epsilon) || over(new_delta, s->budget_delta)) {
            status = privrisk::pg::SpendOutcome::Overspent;
        } else {
            values[1] = Float8GetDatum(new_epsilon);
            values[2] = Float8GetDatum(new_delta);
            if (SPI_execute_with_args(kUpdateBudget, 3, types, values, nullptr, false, 0) != SPI_OK_UPDATE ||
                SPI_processed != 1)
                elog(ERROR, "privrisk: could not update the budget");
            Oid ltypes[7] = {REGCLASSOID, TEXTOID, FLOAT8OID, FLOAT8OID, TEXTOID, TEXTOID, BOOLOID};
            Datum lvalues[7] = {ObjectIdGetDatum(s->relid),        CStringGetTextDatum(s->caller),
                                Float8GetDatum(s->epsilon),        Float8GetDatum(s->delta),
                                CStringGetTextDatum(s->mechanism), CStringGetTextDatum(parameters_of(s)),
                                BoolGetDatum(s->is_private)};
            if (SPI_execute_with_args(kInsertLedger, 7, ltypes, lvalues, nullptr, false, 0) != SPI_OK_INSERT)
                elog(ERROR, "privrisk: could not write the budget ledger");
            status = privrisk::pg::SpendOutcome::Spent;
        }
    }
    SPI_finish();
    PopActiveSnapshot();
    CommitTransactionCommand();
    pgstat_report_activity(STATE_IDLE, nullptr);
    return status;
}

// Registers the worker (waiting a little for a free slot) and waits until it
// has exited. An ERROR here (a cancel while waiting) leaves the worker running.
void launch_and_wait(dsm_segment* segment) {
    BackgroundWorker worker;
    std::memset(&worker, 0, sizeof worker);
    worker.bgw_flags = BGWORKER_SHMEM_ACCESS | BGWORKER_BACKEND_DATABASE_CONNECTION;
    worker.bgw_start_time = BgWorkerStart_RecoveryFinished;
    worker.bgw_restart_time = BGW_NEVER_RESTART;
    strlcpy(worker.bgw_library_name, "privrisk", BGW_MAXLEN);
    strlcpy(worker.bgw_function_name, "privrisk_budget_worker_main", BGW_MAXLEN);
    pg_snprintf(worker.bgw_name, BGW_MAXLEN, "privrisk budget worker for PID %d", MyProcPid);
    strlcpy(worker.bgw_type, "privrisk budget worker", BGW_MAXLEN);
    worker.bgw_main_arg = UInt32GetDatum(dsm_segment_handle(segment));
    worker.bgw_notify_pid = MyProcPid;

    BackgroundWorkerHandle* handle = nullptr;
    const TimestampTz start = GetCurrentTimestamp();
    while (!RegisterDynamicBackgroundWorker(&worker, &handle)) {
        if (TimestampDifferenceExceeds(start, GetCurrentTimestamp(), kSlotWaitMs))
            ereport(ERROR,
                    (errcode(ERRCODE_CONFIGURATION_LIMIT_EXCEEDED),
                     errmsg("could not start the privacy budget worker: no background worker slot was free for %d s; "
                            "nothing was released or spent",
                            kSlotWaitMs / 1000),
                     errhint("Retry the release, or raise max_worker_processes (now %d).", max_worker_processes)));
        (void)WaitLatch(MyLatch, WL_LATCH_SET | WL_TIMEOUT | WL_EXIT_ON_PM_DEATH, 20, PG_WAIT_EXTENSION);
        ResetLatch(MyLatch);
        CHECK_FOR_INTERRUPTS();
    }
    if (WaitForBackgroundWorkerShutdown(handle) == BGWH_POSTMASTER_DIED)
        ereport(FATAL, (errcode(ERRCODE_ADMIN_SHUTDOWN), errmsg("postmaster exited during a privacy budget spend")));
}

}  // namespace

extern "C" {
PGDLLEXPORT void privrisk_budget_worker_main(Datum arg);
}

void privrisk_budget_worker_main(Datum arg) {
    BackgroundWorkerUnblockSignals();
    dsm_segment* segment = dsm_attach(DatumGetUInt32(arg));
    if (!segment) proc_exit(0);  // the caller is gone already: it returned no rows, nothing to spend
    auto* s = static_cast<BudgetShared*>(dsm_segment_address(segment));
    if (s->magic != kMagic) proc_exit(0);
    BackgroundWorkerInitializeConnectionByOid(s->database, s->owner, 0);
    // Nothing from the database's or role's settings decides how the spend runs.
    SetConfigOption("search_path", "pg_catalog, pg_temp", PGC_SUSET, PGC_S_OVERRIDE);
    SetConfigOption("default_transaction_isolation", "read committed", PGC_SUSET, PGC_S_OVERRIDE);
    SetConfigOption("default_transaction_read_only", "off", PGC_SUSET, PGC_S_OVERRIDE);
    SetConfigOption("synchronous_commit", "on", PGC_SUSET, PGC_S_OVERRIDE);  // durable before rows go out

    MemoryContext context = CurrentMemoryContext;
    volatile int status = privrisk::pg::SpendOutcome::NoResult;
    PG_TRY();
    { status = spend_in_transaction(s); }
    PG_CATCH();
    {
        MemoryContextSwitchTo(context);
        ErrorData* e = CopyErrorData();
        EmitErrorReport();
        FlushErrorState();
        s->sqlstate = e->sqlerrcode;
        strlcpy(s->message, e->message ? e->message : "unknown error", sizeof s->message);
        AbortCurrentTransaction();  // nothing of the spend survives
        status = privrisk::pg::SpendOutcome::Failed;
    }
    PG_END_TRY();
    pg_write_barrier();
    s->status = status;
    dsm_detach(segment);
    proc_exit(0);
}

namespace privrisk::pg {

SpendOutcome run_budget_worker(const SpendRequest& r) {
    if (pg_call([] { return RecoveryInProgress(); }))
        fail(ErrorKind::InvalidParameter,
             "a DP release spends a privacy budget, which a server in recovery cannot write");
    const Spend& spend = *r.spend;
    if (r.caller.size() >= NAMEDATALEN || spend.mechanism.size() >= sizeof(BudgetShared::mechanism))
        fail(ErrorKind::Internal, "a budget request field is too long");
    const Size size = sizeof(BudgetShared) + spend.parameters.size() + 1;
    dsm_segment* segment = pg_call([&] { return dsm_create(size, 0); });
    auto* s = static_cast<BudgetShared*>(dsm_segment_address(segment));
    std::memset(static_cast<void*>(s), 0, sizeof *s);
    s->magic = kMagic;
    s->database = MyDatabaseId;
    s->owner = r.owner;
    s->relid = r.relid;
    s->epsilon = spend.epsilon;
    s->delta = spend.delta;
    s->is_private = !spend.seeded;
    std::memcpy(s->caller, r.caller.c_str(), r.caller.size() + 1);
    std::memcpy(s->mechanism, spend.mechanism.c_str(), spend.mechanism.size() + 1);
    s->parameters_length = spend.parameters.size();
    std::memcpy(parameters_of(s), spend.parameters.c_str(), spend.parameters.size() + 1);
    s->status = SpendOutcome::NoResult;
    pg_write_barrier();

    pg_call([&] { launch_and_wait(segment); });

    pg_read_barrier();
    SpendOutcome out;
    out.status = static_cast<SpendOutcome::Status>(s->status);
    out.epsilon = s->budget_epsilon;
    out.delta = s->budget_delta;
    out.spent_epsilon = s->spent_epsilon;
    out.spent_delta = s->spent_delta;
    out.sqlstate = s->sqlstate;
    out.message.assign(s->message, strnlen(s->message, sizeof s->message));
    pg_call([&] { dsm_detach(segment); });
    return out;
}

}  // namespace privrisk::pg
