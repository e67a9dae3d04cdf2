// The steps every dp_release mechanism takes: the budget spent before the source
// is read, the source counted per class (here or on the shards), the output built.
#include "dp/dp_release.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace privrisk::pg::dp {

std::string parameters_json(const Request& r, const std::string& mechanism_fields) {
    std::string qi, h;
    for (std::size_t j = 0; j < r.columns.size(); ++j) {
        qi += (j ? ", " : "") + json_string(r.columns[j].name);
        h += (j ? ", " : "") +
             (r.columns[j].hierarchy_name ? json_string(*r.columns[j].hierarchy_name) : std::string("null"));
    }
    return "{\"quasi_identifiers\": [" + qi + "], \"hierarchies\": [" + h + "], " + mechanism_fields +
           ", \"seed\": " + (r.seed ? std::to_string(*r.seed) : std::string("null")) + "}";
}

DpRandom run_random(const std::optional<int64_t>& seed) {
    if (seed) return DpRandom::from_seed(*seed);
    DpRandom::Secret secret;
    if (!pg_call([&] { return pg_strong_random(secret.data(), secret.size()); }))
        fail(ErrorKind::Internal, "could not read the operating system's random number generator");
    return DpRandom(secret);
}

// Checks the source and the caller's rights, then spends: nothing is read
// before the budget allows it.
std::vector<SourceColumn> open_source(Request& req, const SourceRelation& source, const Spend& spend) {
    char kind = pg_call([&] { return get_rel_relkind(req.relid); });
    if (kind != RELKIND_RELATION && kind != RELKIND_MATVIEW && kind != RELKIND_PARTITIONED_TABLE)
        fail(ErrorKind::InvalidParameter, "dp_release reads tables and materialized views, not " +
                                              quote_value(source.name) +
                                              ": a privacy budget belongs to the table its rows are stored in");
    std::vector<SourceColumn> columns;
    for (auto& c : req.columns) columns.push_back(source_column(source, c.name, "quasi-identifier"));
    for (auto& c : columns) {  // the scan runs with the caller's rights; this error comes first
        AttrNumber attnum = c.attnum;
        bool allowed = pg_call([&] {
            return pg_class_aclcheck(req.relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK ||
                   pg_attribute_aclcheck(req.relid, attnum, GetUserId(), ACL_SELECT) == ACLCHECK_OK;
        });
        if (!allowed)
            fail(ErrorKind::PermissionDenied,
                 "permission denied for column " + quote_value(c.name) + " of relation " + quote_value(source.name));
    }
    spend_budget(req.relid, spend);  // committed before any source row is read
    // Pinned after the spend's SPI: what a read of the source uses is checked against these.
    for (auto& c : req.columns)
        if (c.hierarchy_name) c.hierarchy = &req.pins.pin(*c.hierarchy_name);
    return columns;
}

// One pass over the source: on_rows(codes, rows) for its rows, each value coded
// per column; on_new(column, code) once per distinct value, while no pinned
// hierarchy changed (checked before each use). Returns the rows read.
// Over shards (foreign partitions the caller may read whole), each shard sends
// its classes at `shard_levels` and their counts instead of rows: the values
// on_new then sees are generalized there, by the pinned hierarchies.
int64_t count_source(Request& req, const SourceRelation& source, const std::vector<SourceColumn>& columns,
                     const ReadChoice& read, const std::vector<int>& shard_levels,
                     const std::function<void(const uint32_t*, int64_t)>& on_rows,
                     const std::function<void(std::size_t, uint32_t)>& on_new) {
    long long groups = 0;  // on_rows calls: rows read here, or classes sent by the shards
    CodedScan scan{req.relid, columns, {}, [&](const uint32_t* codes, int64_t n) {
                       ++groups;
                       on_rows(codes, n);
                   }};
    // One code per distinct text: values whose bytes differ but that print
    // alike (two NaNs) are one value of the release, and one key of its sampling.
    scan.on_value = [&](std::size_t j, std::optional<std::string_view> text) {
        req.pins.check("while the source was read; run the release again");
        TextIds& values = req.columns[j].values;
        const std::size_t known = values.text.size();
        const uint32_t code = values.id(text);
        if (values.text.size() > known) on_new(j, code);
        return code;
    };
    const std::vector<Shard>& shards = read.shards;
    int64_t rows;
    if (shards.empty()) {
        rows = run_coded_scan(source, scan, read.rows());
    } else {
        std::vector<ClassColumn> keys;
        std::vector<Oid> key_types;
        for (std::size_t j = 0; j < columns.size(); ++j) {
            keys.push_back({columns[j], req.columns[j].hierarchy_name, shard_levels[j]});
            key_types.push_back(req.columns[j].hierarchy_name ? TEXTOID : columns[j].type);
        }
        rows = run_coded_classes(class_query(source, shards, keys, std::nullopt), key_types, scan);
    }
    pg_call([&] {
        elog(DEBUG1, "dp_release: %lld rows counted from %lld %s", static_cast<long long>(rows), groups,
             shards.empty() ? "rows read here" : "classes sent by the shards");
    });
    return rows;
}

// A class's values in the order of their texts (NULL first): the order the
// kept classes are in before the output's shuffle, whatever order they were met in.
std::function<bool(uint32_t, uint32_t)> by_values(
    const SampleClasses& classes, const std::vector<const std::vector<std::optional<std::string>>*>& texts) {
    return [&classes, &texts](uint32_t a, uint32_t b) {
        const uint32_t *x = classes.ids(a), *y = classes.ids(b);
        for (std::size_t j = 0; j < texts.size(); ++j)
            if (x[j] != y[j]) return (*texts[j])[x[j]] < (*texts[j])[y[j]];
        return false;
    };
}

// How many of `rows` rows with these released values the run samples.
int64_t sampled_rows(const DpRandom& random, const std::vector<std::optional<std::string_view>>& values, int64_t rows,
                     uint64_t threshold) {
    const std::string id = sample_identity(values);
    return random.sampled_rows(id.data(), id.size(), rows, threshold, [] { pg_call([] { CHECK_FOR_INTERRUPTS(); }); });
}

// The kept classes as PostgreSQL data in the multi-call context.
DpOutput* output_classes(const SampleClasses& classes, const SampleClasses::Released& released,
                         const std::vector<const std::vector<std::optional<std::string>>*>& texts,
                         MemoryContext memory) {
    const std::size_t width = texts.size();
    return pg_call([&] {
        MemoryContext old = MemoryContextSwitchTo(memory);
        auto* out = static_cast<DpOutput*>(palloc0(sizeof(DpOutput)));
        out->width = static_cast<int>(width);
        out->classes = static_cast<uint32>(released.classes.size());
        std::size_t cells = std::max<std::size_t>(1, released.classes.size() * width);
        out->values = static_cast<Datum*>(palloc(sizeof(Datum) * cells));
        out->nulls = static_cast<bool*>(palloc(sizeof(bool) * cells));
        out->rows = static_cast<int64*>(palloc(sizeof(int64) * std::max<std::size_t>(1, released.classes.size())));
        // Each released value becomes one text datum, shared by the classes that hold it.
        std::vector<std::vector<Datum>> datums(width);
        for (std::size_t j = 0; j < width; ++j) {
            const auto& t = *texts[j];
            datums[j].resize(t.size(), Datum(0));
            for (std::size_t id = 0; id < t.size(); ++id)
                if (t[id]) datums[j][id] = PointerGetDatum(cstring_to_text_with_len(t[id]->data(), t[id]->size()));
        }
        for (std::size_t i = 0; i < released.classes.size(); ++i) {
            const uint32_t* c = classes.ids(released.classes[i]);
            for (std::size_t j = 0; j < width; ++j) {
                out->nulls[i * width + j] = !(*texts[j])[c[j]];
                out->values[i * width + j] = datums[j][c[j]];
            }
            out->rows[i] = classes.rows(released.classes[i]);
        }
        out->left = out->classes ? out->rows[0] : 0;
        MemoryContextSwitchTo(old);
        return out;
    });
}

// A release that returns no row has spent its budget all the same: say so,
// and why, rather than return nothing without a word.
void notice_nothing_released(const Request& req, const std::string& why) {
    std::string message = "dp_release released no row: " + why + "; epsilon " + number_text(req.epsilon) +
                          " and delta " + number_text(req.delta) + " were spent all the same";
    pg_call([&] {
        ereport(NOTICE, (errmsg("%s", message.c_str()),
                         errhint("privrisk.budget shows what is left; a larger epsilon or delta, or "
                                 "coarser levels, keep more classes.")));
    });
}

}  // namespace privrisk::pg::dp
