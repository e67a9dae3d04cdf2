// privrisk.dp_release (SPEC §4.7), mechanism safepub: one pass over the source
// samples each row by a keyed function of its identity (so the sample does not
// depend on scan order), generalizes the sampled rows to the given node, counts
// their classes, and the classes with fewer than k sampled rows are suppressed.
// The budget is spent first, in the caller's transaction. Released rows come
// class by class in a random order, never in the source's order.
#include <array>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "args.hpp"
#include "dp_budget.hpp"
#include "dp_parameters.hpp"
#include "dp_random.hpp"
#include "error.hpp"
#include "flat_index.hpp"
#include "hierarchy_catalog.hpp"
#include "json_text.hpp"
#include "row_stream.hpp"
#include "sample_classes.hpp"
#include "source_columns.hpp"
#include "value_text.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// A quasi-identifier of the release: its distinct source values, each
// generalized once to the node's level and given the id of its released value.
struct ReleaseColumn {
    std::string name;
    const Hierarchy* hierarchy = nullptr;
    int level = 0;
    ClassKeyReader reader{};
    ValueText text{};
    FlatIndex source_values{std::pmr::new_delete_resource()};
    std::vector<uint32_t> released_of;  // source value index -> released value id
    FlatIndex released_values{std::pmr::new_delete_resource()};
    std::vector<uint32_t> id_of_index;                 // released_values index -> released value id
    std::vector<std::optional<std::string>> released;  // released value id -> text (⊥: nullopt)
    uint32_t null_id = UINT32_MAX;

    uint32_t released_id(std::optional<std::string_view> value) {
        if (!value) {
            if (null_id == UINT32_MAX) {
                null_id = static_cast<uint32_t>(released.size());
                released.emplace_back(std::nullopt);
            }
            return null_id;
        }
        bool added;
        uint32_t index = released_values.find_or_add(*value, &added);
        if (added) {
            id_of_index.push_back(static_cast<uint32_t>(released.size()));
            released.emplace_back(std::string(*value));
        }
        return id_of_index[index];
    }

    // The released value of a new source value; an error names the column and value.
    uint32_t generalize(std::string_view value) {
        if (!hierarchy) return released_id(value);
        int at;
        try {
            at = hierarchy->level_of(value);
        } catch (const Error& e) {
            fail(e.kind(), "quasi-identifier " + quote_value(name) + ": " + e.what());
        }
        if (at > level)
            fail(ErrorKind::InvalidParameter, "quasi-identifier " + quote_value(name) + ": value " + quote_value(value) +
                                                  " is at level " + std::to_string(at) + " of hierarchy " +
                                                  quote_value(hierarchy->name()) + ", above the released level " +
                                                  std::to_string(level));
        std::string scratch;
        Value g = hierarchy->generalize(value, level, scratch);
        return released_id(g);
    }
};

// What the calls after the first return: plain data in the SRF's memory.
struct ReleaseOutput {
    int width;
    bool per_class;   // one row per class with its count, else one row per released row
    uint32 classes;
    uint32 next;      // the class being returned
    int64 left;       // rows of it still to return
    Datum* values;    // classes × width text datums
    bool* nulls;
    int64* rows;
};

enum class Output { Rows, Classes };
constexpr std::size_t kMaxReleaseColumns = 64;

struct Request {
    Oid relid;
    std::vector<ReleaseColumn> columns;
    double epsilon, delta;
    std::optional<int64_t> seed;
    Output output;
};

void check_result_shape(TupleDesc desc, std::size_t width, Output output) {
    const std::size_t expected = width + (output == Output::Classes ? 1 : 0);
    const std::string want = std::to_string(width) + " text column" + (width == 1 ? "" : "s") +
                             (output == Output::Classes ? " and a bigint count" : "");
    if (static_cast<std::size_t>(desc->natts) != expected)
        fail(ErrorKind::InvalidParameter, "the column definition list must have " + want + " (one per quasi-identifier), got " +
                                              std::to_string(desc->natts) + " columns");
    for (std::size_t i = 0; i < expected; ++i) {
        Oid type = TupleDescAttr(desc, i)->atttypid;
        Oid needed = i < width ? TEXTOID : INT8OID;
        if (type != needed)
            fail(ErrorKind::InvalidParameter, "column " + std::to_string(i + 1) + " of the column definition list must be " +
                                                  (needed == TEXTOID ? "text" : "bigint") + " (" + want + ")");
    }
}

std::string parameters_json(const Request& r, const DpParameters& p, const std::vector<std::optional<std::string>>& hierarchies) {
    std::string qi, h, levels;
    for (std::size_t j = 0; j < r.columns.size(); ++j) {
        qi += (j ? ", " : "") + json_string(r.columns[j].name);
        h += (j ? ", " : "") + (hierarchies[j] ? json_string(*hierarchies[j]) : std::string("null"));
        levels += (j ? ", " : "") + std::to_string(r.columns[j].level);
    }
    return "{\"quasi_identifiers\": [" + qi + "], \"hierarchies\": [" + h + "], \"levels\": [" + levels +
           "], \"beta\": " + json_number(p.beta) + ", \"k\": " + std::to_string(p.k) +
           ", \"seed\": " + (r.seed ? std::to_string(*r.seed) : std::string("null")) + "}";
}

// The row identity the sampling is keyed on: relation, block, offset.
struct RowIdentity {
    unsigned char bytes[10];
    void set(Oid relation, const ItemPointerData& tid) {
        uint32 block = ItemPointerGetBlockNumberNoCheck(&tid);
        uint16 offset = ItemPointerGetOffsetNumberNoCheck(&tid);
        std::memcpy(bytes, &relation, 4);
        std::memcpy(bytes + 4, &block, 4);
        std::memcpy(bytes + 8, &offset, 2);
    }
};

DpRandom run_random(const std::optional<int64_t>& seed) {
    if (seed) return DpRandom::from_seed(*seed);
    DpRandom::Secret secret;
    if (!pg_call([&] { return pg_strong_random(secret.data(), secret.size()); }))
        fail(ErrorKind::Internal, "could not read the operating system's random number generator");
    return DpRandom(secret);
}

// The first call: spend, scan, count, suppress; the result goes into `memory`.
ReleaseOutput* build_release(Request& req, const std::vector<std::optional<std::string>>& hierarchy_names,
                             MemoryContext memory) {
    DpParameters p = dp_parameters(req.epsilon, req.delta);
    SourceRelation source = source_relation(req.relid);
    char kind = pg_call([&] { return get_rel_relkind(req.relid); });
    if (kind != RELKIND_RELATION && kind != RELKIND_MATVIEW && kind != RELKIND_PARTITIONED_TABLE)
        fail(ErrorKind::InvalidParameter, "dp_release reads tables and materialized views, not " + quote_value(source.name) +
                                              ": a row's identity (its ctid) decides whether it is sampled");
    std::vector<SourceColumn> columns;
    for (auto& c : req.columns) columns.push_back(source_column(source, c.name, "quasi-identifier"));
    // Checked before anything is spent; the scan itself runs with the caller's rights.
    for (auto& c : columns) {
        AttrNumber attnum = c.attnum;
        bool allowed = pg_call([&] {
            return pg_class_aclcheck(req.relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK ||
                   pg_attribute_aclcheck(req.relid, attnum, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
        });
        if (!allowed)
            fail(ErrorKind::PermissionDenied, "permission denied for column " + quote_value(c.name) + " of relation " +
                                                  quote_value(source.name));
    }

    spend_budget(req.relid, Spend{req.epsilon, req.delta, "safepub", parameters_json(req, p, hierarchy_names),
                                  req.seed.has_value()});
    // Looked up again after the spend's SPI, which may have flushed the cache;
    // a new value is generalized only while the cache is the one looked up.
    for (std::size_t j = 0; j < req.columns.size(); ++j)
        if (hierarchy_names[j]) req.columns[j].hierarchy = &cached_hierarchy(*hierarchy_names[j]);
    const uint64_t generation = hierarchy_generation();
    auto check_hierarchies = [&] {
        if (hierarchy_generation() != generation)
            fail(ErrorKind::InvalidParameter, "a hierarchy changed while the source was read; run the release again");
    };

    const std::size_t width = req.columns.size();
    for (std::size_t j = 0; j < width; ++j) {
        req.columns[j].reader = ClassKeyReader::for_type(columns[j].type);
        pg_call([&] { init_value_text(&req.columns[j].text, columns[j].type, CurrentMemoryContext); });
    }
    MemoryContext row_context = pg_call([] {
        return AllocSetContextCreate(CurrentMemoryContext, "privrisk dp_release rows", ALLOCSET_DEFAULT_SIZES);
    });
    DpRandom random = run_random(req.seed);
    const uint64_t threshold = DpRandom::inclusion_threshold(p.beta);
    SampleClasses classes(width);
    std::vector<uint32_t> ids(width);
    std::vector<std::array<char, sizeof(Datum)>> scratch(width);
    RowIdentity identity;
    ItemPointerData tid;
    const bool from_heap = readable_from_heap(req.relid) && kind != RELKIND_PARTITIONED_TABLE;
    const int first = from_heap ? 0 : 2;  // the SPI query leads with tableoid, ctid
    int64_t rows = 0;
    // Every row's values are checked against the hierarchies (an error must not
    // depend on which rows were sampled); only sampled rows are counted.
    auto on_row = [&](const Datum* values, const bool* nulls) {
        if (from_heap) {
            identity.set(req.relid, tid);
        } else {
            identity.set(DatumGetObjectId(values[0]), *reinterpret_cast<ItemPointer>(DatumGetPointer(values[1])));
        }
        const bool sampled = random.sampled(identity.bytes, sizeof identity.bytes, threshold);
        for (std::size_t j = 0; j < width; ++j) {
            ReleaseColumn& c = req.columns[j];
            if (nulls[first + j]) {
                ids[j] = c.released_id(std::nullopt);
                continue;
            }
            Datum v = values[first + j];
            bool added;
            uint32_t index = c.source_values.find_or_add(c.reader.read(v, scratch[j].data(), row_context), &added);
            if (added) {
                std::string_view text = pg_call([&] { return value_text(&c.text, v); });
                check_hierarchies();
                c.released_of.push_back(c.generalize(text));
            }
            ids[j] = c.released_of[index];
        }
        if (sampled) classes.add(ids.data());
        if ((++rows & 4095) == 0) pg_call([&] {
                MemoryContextReset(row_context);
                CHECK_FOR_INTERRUPTS();
            });
    };
    if (from_heap) {
        std::vector<AttrNumber> attnums;
        for (auto& c : columns) attnums.push_back(c.attnum);
        scan_table_rows(req.relid, attnums, on_row, &tid);
    } else {
        std::string select = "SELECT tableoid, ctid";
        for (auto& c : columns) select += ", " + c.quoted;
        select += " FROM " + source.qualified;
        Spi spi;
        stream_rows(select, {}, on_row);
        spi.finish();
    }
    pg_call([&] { MemoryContextDelete(row_context); });
    if (p.k > rows)
        fail(ErrorKind::InvalidParameter, "delta " + number_text(req.delta) + " needs classes of at least k = " +
                                              std::to_string(p.k) + " sampled rows, more than the " + std::to_string(rows) +
                                              " rows of " + quote_value(source.name) + ": choose a larger delta");

    SampleClasses::Released released = classes.finish(p.k, random);
    // The output, as PostgreSQL data in the multi-call context.
    return pg_call([&] {
        MemoryContext old = MemoryContextSwitchTo(memory);
        auto* out = static_cast<ReleaseOutput*>(palloc0(sizeof(ReleaseOutput)));
        out->width = static_cast<int>(width);
        out->classes = static_cast<uint32>(released.classes.size());
        std::size_t cells = std::max<std::size_t>(1, released.classes.size() * width);
        out->values = static_cast<Datum*>(palloc(sizeof(Datum) * cells));
        out->nulls = static_cast<bool*>(palloc(sizeof(bool) * cells));
        out->rows = static_cast<int64*>(palloc(sizeof(int64) * std::max<std::size_t>(1, released.classes.size())));
        // Each released value becomes one text datum, shared by the classes that hold it.
        std::vector<std::vector<Datum>> texts(width);
        for (std::size_t j = 0; j < width; ++j) {
            texts[j].resize(req.columns[j].released.size(), Datum(0));
            for (std::size_t id = 0; id < texts[j].size(); ++id)
                if (req.columns[j].released[id])
                    texts[j][id] = PointerGetDatum(cstring_to_text_with_len(req.columns[j].released[id]->data(),
                                                                            req.columns[j].released[id]->size()));
        }
        for (std::size_t i = 0; i < released.classes.size(); ++i) {
            const uint32_t* c = classes.ids(released.classes[i]);
            for (std::size_t j = 0; j < width; ++j) {
                out->nulls[i * width + j] = !req.columns[j].released[c[j]];
                out->values[i * width + j] = texts[j][c[j]];
            }
            out->rows[i] = classes.rows(released.classes[i]);
        }
        out->left = out->classes ? out->rows[0] : 0;
        MemoryContextSwitchTo(old);
        return out;
    });
}

}  // namespace

// dp_release(source, quasi_identifiers, hierarchies, epsilon, delta, mechanism,
//            levels, seed, output) -> SETOF record (a column definition list of text columns)
PRIVRISK_FUNCTION(privrisk_dp_release) {
    FuncCallContext* call;
    if (SRF_IS_FIRSTCALL()) {
        call = pg_call([&] { return SRF_FIRSTCALL_INIT(); });
        if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "source must not be NULL");
        Request req;
        req.relid = PG_GETARG_OID(0);
        auto qi = text_array_arg_values(fcinfo, 1, "quasi_identifiers", false);
        if (qi.empty()) fail(ErrorKind::InvalidParameter, "quasi_identifiers must name at least one column");
        if (qi.size() > kMaxReleaseColumns)
            fail(ErrorKind::ProgramLimit, "a release has at most " + std::to_string(kMaxReleaseColumns) + " quasi-identifiers");
        auto hierarchy_names = text_array_arg_values(fcinfo, 2, "hierarchies", true);
        if (hierarchy_names.size() != qi.size())
            fail(ErrorKind::InvalidParameter, "hierarchies must have one entry per quasi-identifier (" +
                                                  std::to_string(qi.size()) + "), got " +
                                                  std::to_string(hierarchy_names.size()));
        if (PG_ARGISNULL(3) || PG_ARGISNULL(4)) fail(ErrorKind::InvalidParameter, "epsilon and delta must not be NULL");
        req.epsilon = PG_GETARG_FLOAT8(3);
        req.delta = PG_GETARG_FLOAT8(4);
        choice_arg<int>(fcinfo, 5, "mechanism", "safepub", {{"safepub", 0}});
        if (PG_ARGISNULL(6))
            fail(ErrorKind::InvalidParameter,
                 "levels must be given: safepub publishes a given generalization (one level per quasi-identifier)");
        std::vector<long> levels = int4_array_arg_values(fcinfo, 6, "levels");
        if (levels.size() != qi.size())
            fail(ErrorKind::InvalidParameter, "levels must have one entry per quasi-identifier (" +
                                                  std::to_string(qi.size()) + "), got " + std::to_string(levels.size()));
        if (!PG_ARGISNULL(7)) req.seed = PG_GETARG_INT64(7);
        req.output = choice_arg<Output>(fcinfo, 8, "output", "rows", {{"rows", Output::Rows}, {"classes", Output::Classes}});
        req.columns.resize(qi.size());
        for (std::size_t j = 0; j < qi.size(); ++j) {
            for (std::size_t i = 0; i < j; ++i)
                if (*qi[i] == *qi[j])
                    fail(ErrorKind::InvalidParameter, "quasi-identifier " + quote_value(*qi[j]) + " is listed twice");
            ReleaseColumn& c = req.columns[j];
            c.name = *qi[j];
            c.hierarchy = hierarchy_names[j] ? &cached_hierarchy(*hierarchy_names[j]) : nullptr;
            const int height = c.hierarchy ? c.hierarchy->height() : 0;
            if (levels[j] < 0 || levels[j] > height)
                fail(ErrorKind::InvalidParameter, "level " + std::to_string(levels[j]) + " of quasi-identifier " +
                                                      quote_value(c.name) + " is outside 0.." + std::to_string(height) +
                                                      (c.hierarchy ? " (hierarchy " + quote_value(c.hierarchy->name()) + ")"
                                                                   : " (no hierarchy: released as is)"));
            c.level = static_cast<int>(levels[j]);
        }
        TupleDesc desc;
        if (pg_call([&] { return get_call_result_type(fcinfo, nullptr, &desc); }) != TYPEFUNC_COMPOSITE)
            fail(ErrorKind::InvalidParameter, "dp_release needs a column definition list: AS r(column text, …)");
        check_result_shape(desc, qi.size(), req.output);
        MemoryContext memory = call->multi_call_memory_ctx;
        ReleaseOutput* out = build_release(req, hierarchy_names, memory);
        out->per_class = req.output == Output::Classes;
        pg_call([&] {
            MemoryContext old = MemoryContextSwitchTo(memory);
            call->tuple_desc = BlessTupleDesc(CreateTupleDescCopy(desc));
            MemoryContextSwitchTo(old);
        });
        call->user_fctx = out;
    }
    call = pg_call([&] { return SRF_PERCALL_SETUP(); });
    auto* out = static_cast<ReleaseOutput*>(call->user_fctx);
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

// dp_sampled(seed, probability, tableoid, ctid): whether a seeded dp_release
// samples this row. Seeded runs are reproducible and not private, so this
// reveals nothing a seeded release does not; it lets tests recompute a
// release with plain SQL, in serial and parallel plans.
PRIVRISK_FUNCTION(privrisk_dp_sampled) {
    struct Memo {
        int64 seed;
        DpRandom random;
    };
    const int64 seed = PG_GETARG_INT64(0);
    const double probability = PG_GETARG_FLOAT8(1);
    auto* memo = static_cast<Memo*>(fcinfo->flinfo->fn_extra);
    if (!memo || memo->seed != seed) {
        DpRandom random = DpRandom::from_seed(seed);
        if (!memo)
            memo = static_cast<Memo*>(pg_call([&] { return MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, sizeof(Memo)); }));
        std::memcpy(static_cast<void*>(memo), &seed, sizeof seed);
        std::memcpy(static_cast<void*>(&memo->random), &random, sizeof random);
        fcinfo->flinfo->fn_extra = memo;
    }
    RowIdentity identity;
    identity.set(PG_GETARG_OID(2), *reinterpret_cast<ItemPointer>(PG_GETARG_POINTER(3)));
    PG_RETURN_BOOL(memo->random.sampled(identity.bytes, sizeof identity.bytes, DpRandom::inclusion_threshold(probability)));
}
