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
#include <algorithm>
#include <array>
#include <functional>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "labels/column_labels.hpp"
#include "common/args.hpp"
#include "classes/class_query.hpp"
#include "dp/dp_budget.hpp"
#include "dp/dp_parameters.hpp"
#include "dp/dp_random.hpp"
#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "dp/fouad_mechanism.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "common/json_text.hpp"
#include "dp/sample_classes.hpp"
#include "dtrisk/sensitivity.hpp"
#include "common/coded_scan.hpp"
#include "common/source_columns.hpp"
#include "common/spi.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// A quasi-identifier of the release: its distinct source values as codes, each
// checked against the hierarchy when first seen (every row's values, sampled or
// not, so an error does not depend on the sample).
struct DpColumn {
    std::string name;
    std::optional<std::string> hierarchy_name;
    const Hierarchy* hierarchy = nullptr;
    int level = 0;                                   // safepub: the released level
    std::vector<std::optional<std::string>> values;  // code -> source value text (⊥: nullopt)

    int height() const { return hierarchy ? hierarchy->height() : 0; }

    void check_value(std::string_view value, int max_level) const {
        if (!hierarchy) return;
        int at;
        try {
            at = hierarchy->level_of(value);
        } catch (const Error& e) {
            fail(e.kind(), "quasi-identifier " + quote_value(name) + ": " + e.what());
        }
        if (at > max_level)
            fail(ErrorKind::InvalidParameter, "quasi-identifier " + quote_value(name) + ": value " + quote_value(value) +
                                                  " is at level " + std::to_string(at) + " of hierarchy " +
                                                  quote_value(hierarchy->name()) + ", above level " + std::to_string(max_level));
    }
};

// Released values of one column: text per id (⊥: nullopt), deduplicated.
struct ReleasedValues {
    FlatIndex index{std::pmr::new_delete_resource()};
    std::vector<uint32_t> id_of_index;
    std::vector<std::optional<std::string>> text;
    uint32_t null_id = UINT32_MAX;

    uint32_t id(std::optional<std::string_view> value) {
        if (!value) {
            if (null_id == UINT32_MAX) {
                null_id = static_cast<uint32_t>(text.size());
                text.emplace_back(std::nullopt);
            }
            return null_id;
        }
        bool added;
        uint32_t i = index.find_or_add(*value, &added);
        if (added) {
            id_of_index.push_back(static_cast<uint32_t>(text.size()));
            text.emplace_back(std::string(*value));
        }
        return id_of_index[i];
    }
};

// What the calls after the first return: plain data in the SRF's memory.
struct DpOutput {
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
enum class Mechanism { SafePub, Fouad };
enum class Sensitivity { Uniform, Harmonic };
constexpr std::size_t kMaxReleaseColumns = 64;

struct Request {
    Oid relid;
    std::vector<DpColumn> columns;
    double epsilon, delta;
    Mechanism mechanism;
    std::optional<int64_t> seed;
    Output output;
    FouadParameters fouad;
    Sensitivity sensitivity = Sensitivity::Uniform;
    std::vector<double> leaf_weights;
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

std::string parameters_json(const Request& r, const std::string& mechanism_fields) {
    std::string qi, h;
    for (std::size_t j = 0; j < r.columns.size(); ++j) {
        qi += (j ? ", " : "") + json_string(r.columns[j].name);
        h += (j ? ", " : "") + (r.columns[j].hierarchy_name ? json_string(*r.columns[j].hierarchy_name) : std::string("null"));
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
        fail(ErrorKind::InvalidParameter, "dp_release reads tables and materialized views, not " + quote_value(source.name) +
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
            fail(ErrorKind::PermissionDenied, "permission denied for column " + quote_value(c.name) + " of relation " +
                                                  quote_value(source.name));
    }
    spend_budget(req.relid, spend);  // committed before any source row is read
    // Looked up again after the spend's SPI, which may have flushed the cache.
    for (auto& c : req.columns)
        if (c.hierarchy_name) c.hierarchy = &cached_hierarchy(*c.hierarchy_name);
    return columns;
}

// One pass over the source: on_rows(codes, rows) for its rows, each value coded
// per column; on_new(column, code) once per distinct value, while the hierarchy
// cache is the one looked up (checked before each use). Returns the rows read.
// Over shards (foreign partitions the caller may read whole), each shard sends
// its classes at `shard_levels` and their counts instead of rows: the values
// on_new then sees are generalized there, by the pinned hierarchies.
int64_t count_source(Request& req, const SourceRelation& source, const std::vector<SourceColumn>& columns,
                     const std::vector<Shard>& shards, const std::vector<int>& shard_levels,
                     const std::function<void(const uint32_t*, int64_t)>& on_rows,
                     const std::function<void(std::size_t, uint32_t)>& on_new) {
    const uint64_t generation = hierarchy_generation();
    long long groups = 0;  // on_rows calls: rows read here, or classes sent by the shards
    CodedScan scan{req.relid, columns, {}, [&](const uint32_t* codes, int64_t n) {
                       ++groups;
                       on_rows(codes, n);
                   }};
    // One code per distinct text: values whose bytes differ but that print
    // alike (two NaNs) are one value of the release, and one key of its sampling.
    struct Texts {
        FlatIndex index{std::pmr::new_delete_resource()};
        std::vector<uint32_t> code_of;
        std::optional<uint32_t> null_code;
    };
    std::vector<Texts> texts(columns.size());
    scan.on_value = [&](std::size_t j, std::optional<std::string_view> text) {
        if (hierarchy_generation() != generation)
            fail(ErrorKind::InvalidParameter, "a hierarchy changed while the source was read; run the release again");
        DpColumn& c = req.columns[j];
        Texts& seen = texts[j];
        if (!text && seen.null_code) return *seen.null_code;
        bool added = true;
        uint32_t index = 0;
        if (text) {
            index = seen.index.find_or_add(*text, &added);
            if (!added) return seen.code_of[index];
        }
        const uint32_t code = static_cast<uint32_t>(c.values.size());
        c.values.emplace_back(text ? std::optional<std::string>(std::string(*text)) : std::nullopt);
        if (text)
            seen.code_of.push_back(code);
        else
            seen.null_code = code;
        on_new(j, code);
        return code;
    };
    int64_t rows;
    if (shards.empty()) {
        rows = run_coded_scan(source, scan);
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
std::function<bool(uint32_t, uint32_t)> by_values(const SampleClasses& classes,
                                                  const std::vector<const std::vector<std::optional<std::string>>*>& texts) {
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
                              const std::vector<const std::vector<std::optional<std::string>>*>& texts, MemoryContext memory) {
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

// SafePub: sample with β, generalize to the node, suppress classes under k.
DpOutput* release_safepub(Request& req, MemoryContext memory) {
    DpParameters p = dp_parameters(req.epsilon, req.delta);
    SourceRelation source = source_relation(req.relid);
    std::string levels;
    for (std::size_t j = 0; j < req.columns.size(); ++j) levels += (j ? ", " : "") + std::to_string(req.columns[j].level);
    auto columns = open_source(req, source,
                               Spend{req.epsilon, req.delta, "safepub",
                                     parameters_json(req, "\"levels\": [" + levels + "], \"beta\": " + json_number(p.beta) +
                                                              ", \"k\": " + std::to_string(p.k)),
                                     req.seed.has_value()});
    const std::size_t width = req.columns.size();
    std::vector<ReleasedValues> released_values(width);
    std::vector<std::vector<uint32_t>> released_of(width);  // code -> released id
    DpRandom random = run_random(req.seed);
    const uint64_t threshold = DpRandom::inclusion_threshold(p.beta);
    SampleClasses counted(width);  // every row of the source, per released class
    std::vector<uint32_t> ids(width);
    std::vector<int> levels_of;
    for (const DpColumn& c : req.columns) levels_of.push_back(c.level);
    std::string scratch;
    const std::vector<Shard> shards = class_shards(req.relid, columns);
    const bool generalized = !shards.empty();  // the shards sent classes: values come generalized
    int64_t rows = count_source(
        req, source, columns, shards, levels_of,
        [&](const uint32_t* codes, int64_t n) {
            for (std::size_t j = 0; j < width; ++j) ids[j] = released_of[j][codes[j]];
            counted.add(ids.data(), n);
        },
        [&](std::size_t j, uint32_t code) {
            DpColumn& c = req.columns[j];
            const auto& v = c.values[code];
            Value g = std::nullopt;
            if (v) {
                if (!generalized) c.check_value(*v, c.level);
                g = c.hierarchy && !generalized ? c.hierarchy->generalize(*v, c.level, scratch) : Value(*v);
            }
            released_of[j].push_back(released_values[j].id(g));
        });
    if (p.k > rows)
        fail(ErrorKind::InvalidParameter, "delta " + number_text(req.delta) + " needs classes of at least k = " +
                                              std::to_string(p.k) + " sampled rows, more than the " + std::to_string(rows) +
                                              " rows of " + quote_value(source.name) + ": choose a larger delta");
    // Each class's sampled rows: a function of its values and count alone.
    std::vector<const std::vector<std::optional<std::string>>*> texts;
    for (auto& r : released_values) texts.push_back(&r.text);
    SampleClasses sample(width);
    std::vector<std::optional<std::string_view>> values(width);
    for (uint32_t c = 0; c < counted.classes(); ++c) {
        const uint32_t* class_ids = counted.ids(c);
        for (std::size_t j = 0; j < width; ++j) {
            const auto& t = (*texts[j])[class_ids[j]];
            values[j] = t ? std::optional<std::string_view>(*t) : std::nullopt;
        }
        const int64_t n = sampled_rows(random, values, counted.rows(c), threshold);
        if (n > 0) sample.add(class_ids, n);
        if ((c & 4095) == 4095) pg_call([] { CHECK_FOR_INTERRUPTS(); });
    }
    SampleClasses::Released kept = sample.finish(p.k, random, by_values(sample, texts));
    // Only what the release shows anyway (no row) and public parameters: the
    // sample's size and classes are not covered by the privacy guarantee.
    if (kept.classes.empty())
        notice_nothing_released(req, "every class of the sample had fewer than k = " + std::to_string(p.k) +
                                         " rows and was suppressed");
    return output_classes(sample, kept, texts, memory);
}

// The most leaves under one node below the root of a tree hierarchy, from the
// catalog: public, so φ_l derived from it leaks nothing about the data (A7).
int64_t widest_node(const std::string& hierarchy) {
    Spi spi;
    spi.run("SELECT h.kind, (SELECT pg_catalog.max(n) FROM (SELECT pg_catalog.count(*) AS n "
            "FROM privrisk.hierarchy_leaf l, pg_catalog.generate_subscripts(l.path, 1) AS i "
            "WHERE l.hierarchy OPERATOR(pg_catalog.=) h.name GROUP BY i, l.path[i]) AS c)::pg_catalog.int8 "
            "FROM privrisk.hierarchy h WHERE h.name OPERATOR(pg_catalog.=) $1",
            {text_arg(hierarchy)}, true);
    if (spi.string(0, 1) != "tree")
        fail(ErrorKind::InvalidParameter, "sensitivity harmonic needs tree hierarchies (leaf counts); " +
                                              quote_value(hierarchy) + " is of kind " + spi.string(0, 1));
    const int64_t widest = spi.int8(0, 2);
    spi.finish();
    return widest;
}

// Fouad: keep with 1 − β, choose a t-frequent generalization per kept record.
DpOutput* release_fouad(Request& req, MemoryContext memory) {
    const FouadParameters& fp = req.fouad;
    check_fouad_parameters(fp);
    if (!(req.delta > 0 && req.delta < 1))
        fail(ErrorKind::InvalidParameter, "delta must be in (0, 1), got " + number_text(req.delta));
    const std::size_t width = req.columns.size();
    // Weights from the schema alone (A7): uniform is Model II (Φ ≡ 1); harmonic
    // is w_leaf/n(x), ⊥ weighing 0.
    double phi_l = 1, phi_u = 1;
    if (req.sensitivity == Sensitivity::Harmonic) {
        if (req.leaf_weights.empty()) req.leaf_weights.assign(width, 1.0 / width);
        if (req.leaf_weights.size() != width)
            fail(ErrorKind::InvalidParameter, "leaf_weights must have one entry per quasi-identifier (" +
                                                  std::to_string(width) + "), got " + std::to_string(req.leaf_weights.size()));
        phi_l = INFINITY;
        phi_u = 0;
        for (std::size_t j = 0; j < width; ++j) {
            const double w = req.leaf_weights[j];
            if (!(w > 0) || !std::isfinite(w))
                fail(ErrorKind::InvalidParameter, "leaf weight " + number_text(w) + " of " + quote_value(req.columns[j].name) +
                                                      " must be positive and finite");
            phi_u += w;
            const int64_t widest = req.columns[j].hierarchy_name ? widest_node(*req.columns[j].hierarchy_name) : 1;
            phi_l = std::min(phi_l, w / double(widest));
        }
    } else if (!req.leaf_weights.empty()) {
        fail(ErrorKind::InvalidParameter, "leaf_weights apply to sensitivity harmonic");
    }
    const double scale = fouad_scale(fp, phi_l, phi_u);
    SourceRelation source = source_relation(req.relid);
    std::string mechanism_fields = "\"drop_probability\": " + json_number(fp.drop) + ", \"theta0\": " + json_number(fp.theta0) +
                                   ", \"lambda\": " + json_number(fp.lambda) + ", \"kappa\": " + std::to_string(fp.kappa) +
                                   ", \"score\": " + json_string(fp.score == FouadScore::Aggregate ? "aggregate" : "risk") +
                                   ", \"sensitivity\": " + json_string(req.sensitivity == Sensitivity::Uniform ? "uniform" : "harmonic");
    auto columns = open_source(req, source,
                               Spend{req.epsilon, req.delta, "fouad", parameters_json(req, mechanism_fields), req.seed.has_value()});
    DpRandom random = run_random(req.seed);
    const uint64_t keep = DpRandom::inclusion_threshold(1 - fp.drop);
    // Codes are assigned during the scan and the mechanism needs the dimensions
    // first, so the scan counts rows (and kept rows) per distinct tuple.
    std::vector<FouadDimension> dims(width);
    FlatIndex tuples{std::pmr::new_delete_resource()};
    std::vector<uint32_t> tuple_codes;
    std::vector<int64_t> tuple_rows;
    int64_t rows = count_source(
        req, source, columns, class_shards(req.relid, columns), std::vector<int>(width, 0),
        [&](const uint32_t* codes, int64_t n) {
            uint32_t t = tuples.find_or_add(std::string_view(reinterpret_cast<const char*>(codes), width * sizeof(uint32_t)));
            if (t == tuple_rows.size()) {
                tuple_rows.push_back(0);
                tuple_codes.insert(tuple_codes.end(), codes, codes + width);
            }
            tuple_rows[t] += n;
        },
        [&](std::size_t j, uint32_t code) {
            const auto& v = req.columns[j].values[code];
            if (v) req.columns[j].check_value(*v, 0);  // generalizations start from leaves
        });
    // Each distinct row's kept records: a function of its values and count alone.
    std::vector<int64_t> tuple_kept(tuple_rows.size());
    std::vector<std::optional<std::string_view>> values(width);
    for (std::size_t t = 0; t < tuple_rows.size(); ++t) {
        for (std::size_t j = 0; j < width; ++j) {
            const auto& v = req.columns[j].values[tuple_codes[t * width + j]];
            values[j] = v ? std::optional<std::string_view>(*v) : std::nullopt;
        }
        tuple_kept[t] = sampled_rows(random, values, tuple_rows[t], keep);
        if ((t & 4095) == 4095) pg_call([] { CHECK_FOR_INTERRUPTS(); });
    }
    // Each column's values generalized per level: ids per level, texts per released id.
    std::vector<ReleasedValues> released(width);
    std::vector<std::vector<std::vector<uint32_t>>> released_at(width);  // [column][level][code] -> released id
    int max_chain = 1;
    std::string scratch;
    for (std::size_t j = 0; j < width; ++j) {
        const DpColumn& c = req.columns[j];
        FouadDimension& d = dims[j];
        d.height = c.height();
        max_chain = std::max(max_chain, d.height + 1);
        const std::size_t n = c.values.size();
        d.ancestor.assign(d.height + 1, std::vector<uint32_t>(n));
        d.weight.assign(d.height + 1, std::vector<double>(n));
        released_at[j].assign(d.height + 1, std::vector<uint32_t>(n));
        d.suppressed.resize(n);
        for (int level = 0; level <= d.height; ++level) {
            for (uint32_t code = 0; code < n; ++code) {
                const auto& v = c.values[code];
                d.suppressed[code] = !v;
                Value g = !v ? Value() : c.hierarchy ? c.hierarchy->generalize(*v, level, scratch) : Value(*v);
                uint32_t id = released[j].id(g);
                released_at[j][level][code] = id;
                d.ancestor[level][code] = id;  // ids are unique across levels: labels identify nodes
                double w = 1.0 / width;  // uniform: Model II
                if (req.sensitivity == Sensitivity::Harmonic)  // a column without hierarchy has height 0: ⊥ only
                    w = !g || level == d.height ? 0 : harmonic_weight(*c.hierarchy, g, req.leaf_weights[j]);
                d.weight[level][code] = w;
            }
        }
    }
    check_fouad_delta(fp, req.delta, rows, max_chain, static_cast<int>(width), fouad_tilt(fp, scale, phi_u));
    FouadMechanism m(std::move(dims), fp, phi_l, phi_u);
    for (std::size_t t = 0; t < tuple_rows.size(); ++t) m.add(&tuple_codes[t * width], tuple_rows[t], tuple_kept[t]);
    m.prepare();
    auto value_of = [&](std::size_t t, std::size_t j) -> const std::optional<std::string>& {
        return req.columns[j].values[m.tuple(t)[j]];
    };
    SampleClasses classes(width);
    std::vector<uint32_t> ids(width);
    m.release(
        random,
        [&](std::size_t a, std::size_t b) {  // by the rows' values, not the scan's order
            for (std::size_t j = 0; j < width; ++j)
                if (value_of(a, j) != value_of(b, j)) return value_of(a, j) < value_of(b, j);
            return false;
        },
        [&](std::size_t t, const FouadMechanism::Choice* c) {
            for (std::size_t j = 0; j < width; ++j)
                ids[j] = c ? released_at[j][c->levels[j]][m.tuple(t)[j]] : released[j].id(std::nullopt);
            classes.add(ids.data());
        },
        [] { pg_call([] { CHECK_FOR_INTERRUPTS(); }); });
    std::vector<const std::vector<std::optional<std::string>>*> texts;
    for (auto& r : released) texts.push_back(&r.text);
    SampleClasses::Released out = classes.finish(1, random, by_values(classes, texts));
    return output_classes(classes, out, texts, memory);
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
            fail(ErrorKind::ProgramLimit, "a release has at most " + std::to_string(kMaxReleaseColumns) + " quasi-identifiers");
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
        req.output = choice_arg<Output>(fcinfo, 8, "output", "rows", {{"rows", Output::Rows}, {"classes", Output::Classes}});
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
        if (req.mechanism == Mechanism::SafePub) {
            if (fouad_args)
                fail(ErrorKind::InvalidParameter, "drop_probability, theta0, lambda, kappa, score, sensitivity and "
                                                  "leaf_weights apply to mechanism fouad");
            if (PG_ARGISNULL(6))
                fail(ErrorKind::InvalidParameter,
                     "levels must be given: safepub publishes a given generalization (one level per quasi-identifier)");
            std::vector<long> levels = int4_array_arg_values(fcinfo, 6, "levels");
            if (levels.size() != qi.size())
                fail(ErrorKind::InvalidParameter, "levels must have one entry per quasi-identifier (" +
                                                      std::to_string(qi.size()) + "), got " + std::to_string(levels.size()));
            for (std::size_t j = 0; j < qi.size(); ++j) {
                DpColumn& c = req.columns[j];
                if (levels[j] < 0 || levels[j] > c.height())
                    fail(ErrorKind::InvalidParameter, "level " + std::to_string(levels[j]) + " of quasi-identifier " +
                                                          quote_value(c.name) + " is outside 0.." + std::to_string(c.height()) +
                                                          (c.hierarchy ? " (hierarchy " + quote_value(c.hierarchy->name()) + ")"
                                                                       : " (no hierarchy: released as is)"));
                c.level = static_cast<int>(levels[j]);
            }
        } else {
            if (!PG_ARGISNULL(6)) fail(ErrorKind::InvalidParameter, "fouad chooses a generalization per record: levels do not apply");
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
