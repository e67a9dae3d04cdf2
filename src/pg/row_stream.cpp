#include "row_stream.hpp"

#include "error.hpp"

extern "C" {
#include "executor/tuptable.h"
#include "tcop/dest.h"
}

namespace privrisk::pg {
namespace {

struct Receiver {
    DestReceiver pub;  // first, so a DestReceiver* is a Receiver*
    const std::function<void(const Datum*, const bool*)>* on_row;
    std::exception_ptr error;

    bool deliver(TupleTableSlot* slot) noexcept {
        try {
            (*on_row)(slot->tts_values, slot->tts_isnull);
            return true;
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
    SPIPlanPtr plan = pg_call([&] { return SPI_prepare_cursor(text, n, types, CURSOR_OPT_PARALLEL_OK); });
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
    SPIExecuteOptions options{};
    options.params = params;
    options.read_only = true;
    options.dest = &receiver.pub;
    int rc = pg_call([&] { return SPI_execute_plan_extended(plan, &options); });
    if (receiver.error) std::rethrow_exception(receiver.error);
    if (rc < 0) fail(ErrorKind::Internal, std::string("SPI failed: ") + SPI_result_code_string(rc));
}

}  // namespace privrisk::pg
