// privrisk.dp_release (docs/dp.md). One pass over the source counts its rows
// per class (over shards, each shard counts its own and only classes cross the
// network); how many of a class's rows are sampled is a keyed function of the
// class and its count (src/core/dp/dp_random), so the sample does not depend
// on scan order, workers or where the rows are stored. safepub counts the
// classes of the given node and suppresses those with fewer than k sampled
// rows; fouad counts the distinct rows, then gives each kept row a t-frequent
// generalization drawn by the exponential mechanism (src/core/fouad_mechanism). The budget is spent
// first and committed in a transaction of its own (dp_budget_worker.cpp), so a
// rollback cannot make a release free. Released rows come class by class in a
// random order, never in the source's order, with no identifier.
#include "dp/dp_release.hpp"

using namespace privrisk;
using namespace privrisk::pg;
using namespace privrisk::pg::dp;

namespace {

void check_result_shape(TupleDesc desc, std::size_t width, Output output) {
    const std::size_t expected = width + (output == Output::Classes ? 1 : 0);
    const std::string want = std::to_string(width) + " text column" + (width == 1 ? "" : "s") +
                             (output == Output::Classes ? " and a bigint count" : "");
    if (static_cast<std::size_t>(desc->natts) != expected)
        fail(ErrorKind::InvalidParameter, "the column definition list must have " + want +
                                              " (one per quasi-identifier), got " + std::to_string(desc->natts) +
                                              " columns");
    for (std::size_t i = 0; i < expected; ++i) {
        Oid type = TupleDescAttr(desc, i)->atttypid;
        Oid needed = i < width ? TEXTOID : INT8OID;
        if (type != needed)
            fail(ErrorKind::InvalidParameter, "column " + std::to_string(i + 1) +
                                                  " of the column definition list must be " +
                                                  (needed == TEXTOID ? "text" : "bigint") + " (" + want + ")");
    }
}

// safepub's arguments: a level per quasi-identifier, none of fouad's.
void safepub_arguments(FunctionCallInfo fcinfo, Request& req, bool fouad_args) {
    if (fouad_args)
        fail(ErrorKind::InvalidParameter,
             "drop_probability, theta0, lambda, kappa, score, sensitivity and "
             "leaf_weights apply to mechanism fouad");
    if (PG_ARGISNULL(6))
        fail(ErrorKind::InvalidParameter,
             "levels must be given: safepub publishes a given generalization (one level per quasi-identifier)");
    std::vector<long> levels = int4_array_arg_values(fcinfo, 6, "levels");
    if (levels.size() != req.columns.size())
        fail(ErrorKind::InvalidParameter, "levels must have one entry per quasi-identifier (" +
                                              std::to_string(req.columns.size()) + "), got " +
                                              std::to_string(levels.size()));
    for (std::size_t j = 0; j < req.columns.size(); ++j) {
        DpColumn& c = req.columns[j];
        if (levels[j] < 0 || levels[j] > c.height())
            fail(ErrorKind::InvalidParameter, "level " + std::to_string(levels[j]) + " of quasi-identifier " +
                                                  quote_value(c.name) + " is outside 0.." + std::to_string(c.height()) +
                                                  (c.hierarchy ? " (hierarchy " + quote_value(c.hierarchy->name()) + ")"
                                                               : " (no hierarchy: released as is)"));
        c.level = static_cast<int>(levels[j]);
    }
}

// fouad's arguments: a drop probability and its score's parameters, no levels.
void fouad_arguments(FunctionCallInfo fcinfo, Request& req) {
    if (!PG_ARGISNULL(6))
        fail(ErrorKind::InvalidParameter, "fouad chooses a generalization per record: levels do not apply");
    if (PG_ARGISNULL(9))
        fail(ErrorKind::InvalidParameter, "fouad needs drop_probability, the probability that a record is not kept");
    req.fouad.epsilon = req.epsilon;
    req.fouad.drop = PG_GETARG_FLOAT8(9);
    if (!PG_ARGISNULL(10)) req.fouad.theta0 = PG_GETARG_FLOAT8(10);
    if (!PG_ARGISNULL(11)) req.fouad.lambda = PG_GETARG_FLOAT8(11);
    if (!PG_ARGISNULL(12)) req.fouad.kappa = PG_GETARG_INT32(12);
    req.fouad.score = choice_arg<FouadScore>(fcinfo, 13, "score", "aggregate",
                                             {{"aggregate", FouadScore::Aggregate}, {"risk", FouadScore::Risk}});
    req.sensitivity = choice_arg<Sensitivity>(fcinfo, 14, "sensitivity", "uniform",
                                              {{"uniform", Sensitivity::Uniform}, {"harmonic", Sensitivity::Harmonic}});
    if (!PG_ARGISNULL(15)) req.leaf_weights = float8_array_arg_values(fcinfo, 15, "leaf_weights");
    check_fouad_parameters(req.fouad);
}

}  // namespace

// dp_release(source, quasi_identifiers, hierarchies, epsilon, delta, mechanism, levels, seed, output,
//            drop_probability, theta0, lambda, kappa, score, sensitivity, leaf_weights)
//   -> SETOF record (a column definition list of text columns)
PRIVRISK_FUNCTION(privrisk_dp_release) {
    FuncCallContext* call;
    if (SRF_IS_FIRSTCALL()) {
        call = pg_call([&] { return SRF_FIRSTCALL_INIT(); });
        if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "source must not be NULL");
        Request req;
        req.relid = PG_GETARG_OID(0);
        // Omitted quasi-identifiers and hierarchies come from the column labels (docs/labels.md).
        OptionalTexts qi_given, hierarchies_given;
        if (!PG_ARGISNULL(1)) qi_given = text_array_arg_values(fcinfo, 1, "quasi_identifiers", true);
        if (!PG_ARGISNULL(2)) hierarchies_given = text_array_arg_values(fcinfo, 2, "hierarchies", true);
        RoleArguments roles =
            labelled_role_arguments(req.relid, qi_given, hierarchies_given, std::string(), "dp_release");
        std::vector<std::optional<std::string>> qi(roles.quasi_identifiers.begin(), roles.quasi_identifiers.end());
        if (qi.empty()) fail(ErrorKind::InvalidParameter, "quasi_identifiers must name at least one column");
        if (qi.size() > kMaxReleaseColumns)
            fail(ErrorKind::ProgramLimit,
                 "a release has at most " + std::to_string(kMaxReleaseColumns) + " quasi-identifiers");
        if (!roles.hierarchies)
            fail(ErrorKind::InvalidParameter,
                 "dp_release: no hierarchies: pass hierarchies (NULL for a column released as it is), or name "
                 "each quasi-identifier's in its label ('quasi_identifier(<hierarchy>)')");
        auto hierarchy_names = *roles.hierarchies;
        if (hierarchy_names.size() != qi.size())
            fail(ErrorKind::InvalidParameter, "hierarchies must have one entry per quasi-identifier (" +
                                                  std::to_string(qi.size()) + "), got " +
                                                  std::to_string(hierarchy_names.size()));
        if (PG_ARGISNULL(3) || PG_ARGISNULL(4)) fail(ErrorKind::InvalidParameter, "epsilon and delta must not be NULL");
        req.epsilon = PG_GETARG_FLOAT8(3);
        req.delta = PG_GETARG_FLOAT8(4);
        req.mechanism = choice_arg<Mechanism>(fcinfo, 5, "mechanism", "safepub",
                                              {{"safepub", Mechanism::SafePub}, {"fouad", Mechanism::Fouad}});
        if (!PG_ARGISNULL(7)) req.seed = PG_GETARG_INT64(7);
        req.output =
            choice_arg<Output>(fcinfo, 8, "output", "rows", {{"rows", Output::Rows}, {"classes", Output::Classes}});
        req.columns.resize(qi.size());
        for (std::size_t j = 0; j < qi.size(); ++j) {
            for (std::size_t i = 0; i < j; ++i)
                if (*qi[i] == *qi[j])
                    fail(ErrorKind::InvalidParameter, "quasi-identifier " + quote_value(*qi[j]) + " is listed twice");
            req.columns[j].name = *qi[j];
            req.columns[j].hierarchy_name = hierarchy_names[j];
            if (hierarchy_names[j]) req.columns[j].hierarchy = &cached_hierarchy(*hierarchy_names[j]);
        }
        const bool fouad_args = !PG_ARGISNULL(9) || !PG_ARGISNULL(10) || !PG_ARGISNULL(11) || !PG_ARGISNULL(12) ||
                                !PG_ARGISNULL(13) || !PG_ARGISNULL(14) || !PG_ARGISNULL(15);
        if (req.mechanism == Mechanism::SafePub) safepub_arguments(fcinfo, req, fouad_args);
        else fouad_arguments(fcinfo, req);
        TupleDesc desc;
        if (pg_call([&] { return get_call_result_type(fcinfo, nullptr, &desc); }) != TYPEFUNC_COMPOSITE)
            fail(ErrorKind::InvalidParameter, "dp_release needs a column definition list: AS r(column text, …)");
        check_result_shape(desc, qi.size(), req.output);
        MemoryContext memory = call->multi_call_memory_ctx;
        DpOutput* out = req.mechanism == Mechanism::SafePub ? release_safepub(req, memory) : release_fouad(req, memory);
        if (req.mechanism == Mechanism::Fouad && out->classes == 0)
            notice_nothing_released(req, "every record was dropped or suppressed");
        out->per_class = req.output == Output::Classes;
        pg_call([&] {
            MemoryContext old = MemoryContextSwitchTo(memory);
            call->tuple_desc = BlessTupleDesc(CreateTupleDescCopy(desc));
            MemoryContextSwitchTo(old);
        });
        call->user_fctx = out;
    }
    call = pg_call([&] { return SRF_PERCALL_SETUP(); });
    auto* out = static_cast<DpOutput*>(call->user_fctx);
    auto* rsi = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    if (out->next >= out->classes) {
        pg_call([&] { end_MultiFuncCall(fcinfo, call); });
        rsi->isDone = ExprEndResult;
        PG_RETURN_NULL();
    }
    const uint32 c = out->next;
    Datum result = pg_call([&] {
        Datum values[kMaxReleaseColumns + 1];
        bool nulls[kMaxReleaseColumns + 1];
        const int w = out->width;
        for (int j = 0; j < w; ++j) {
            values[j] = out->values[std::size_t(c) * w + j];
            nulls[j] = out->nulls[std::size_t(c) * w + j];
        }
        if (out->per_class) {
            values[w] = Int64GetDatum(out->rows[c]);
            nulls[w] = false;
        }
        return HeapTupleGetDatum(heap_form_tuple(call->tuple_desc, values, nulls));
    });
    if (out->per_class || --out->left == 0) {
        ++out->next;
        if (out->next < out->classes) out->left = out->rows[out->next];
    }
    call->call_cntr++;
    rsi->isDone = ExprMultipleResult;
    PG_RETURN_DATUM(result);
}

// dp_sampled_rows(seed, probability, class, rows): how many of a class's rows a
// seeded dp_release samples (class: the released values, NULL for ⊥; rows: the
// class's rows in the source). Seeded runs are reproducible and not private, so
// this reveals nothing a seeded release does not; it lets tests recompute a
// release with plain SQL.
PRIVRISK_FUNCTION(privrisk_dp_sampled_rows) {
    const int64 seed = PG_GETARG_INT64(0);
    const double probability = PG_GETARG_FLOAT8(1);
    auto values = text_array_arg_values(fcinfo, 2, "class", true);
    const int64 rows = PG_GETARG_INT64(3);
    if (rows < 0) fail(ErrorKind::InvalidParameter, "rows must not be negative, got " + std::to_string(rows));
    std::vector<std::optional<std::string_view>> views;
    for (const auto& v : values) views.push_back(v ? std::optional<std::string_view>(*v) : std::nullopt);
    PG_RETURN_INT64(sampled_rows(DpRandom::from_seed(seed), views, rows, DpRandom::inclusion_threshold(probability)));
}

// The C symbol of 0.12's dp_sampled(seed, probability, tableoid, ctid): the
// install scripts of released versions still name it, so it stays, and says
// what replaced it (the 0.12 -> 0.13 update drops the SQL function).
PRIVRISK_FUNCTION(privrisk_dp_sampled) {
    fail(ErrorKind::InvalidParameter,
         "dp_sampled was removed in privrisk 0.13: releases sample by class, not by ctid; run ALTER EXTENSION privrisk "
         "UPDATE and use privrisk.dp_sampled_rows(seed, probability, class, rows)");
    PG_RETURN_NULL();
}
