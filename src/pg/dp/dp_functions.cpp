// Differential privacy (docs/dp.md): SafePub's (ε, δ) -> (β, k). The sampling
// release itself and the budget are still to come.
#include "dp/dp_parameters.hpp"
#include "common/error.hpp"
#include "common/guard.hpp"

extern "C" {
#include "funcapi.h"
}

using namespace privrisk;
using namespace privrisk::pg;

// dp_parameters(epsilon, delta, OUT beta, OUT k, OUT delta_k)
PRIVRISK_FUNCTION(privrisk_dp_parameters) {
    DpParameters p = dp_parameters(PG_GETARG_FLOAT8(0), PG_GETARG_FLOAT8(1));
    return pg_call([&] {
        TupleDesc desc;
        if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
            ereport(ERROR, (errmsg("dp_parameters must be called as returning a record")));
        desc = BlessTupleDesc(desc);
        Datum values[3] = {Float8GetDatum(p.beta), Int64GetDatum(p.k), Float8GetDatum(p.delta_k)};
        bool nulls[3] = {false, false, false};
        return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
    });
}
