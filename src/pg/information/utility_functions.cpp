// What a release is still good for (docs/information.md; [BS08] and [ASB12] §3.5):
// the Askari utility of a table's columns at given generalization levels, and
// the cross-validated accuracy of a classifier on a release. Both read the
// source once through SPI with the caller's rights, each column as the text a
// reader of the release sees (generalized with gen() where a level is given).
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include "common/args.hpp"
#include "information/classifier.hpp"
#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "information/information.hpp"
#include "common/json_text.hpp"
#include "common/row_stream.hpp"
#include "common/source_columns.hpp"
#include "common/value_text.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// A column as read: each row's value as a dense code in first-seen order (⊥ too).
struct ColumnCodes {
    FlatIndex index{std::pmr::new_delete_resource()};
    std::vector<std::optional<std::string>> values;  // per code
    std::optional<uint32_t> bottom;
    uint32_t code(const bool null, std::string_view text) {
        if (null) {
            if (!bottom) {
                bottom = static_cast<uint32_t>(values.size());
                values.emplace_back(std::nullopt);
            }
            return *bottom;
        }
        bool added;
        uint32_t id = index.find_or_add(text, &added);
        if (added) {
            of_index.push_back(static_cast<uint32_t>(values.size()));
            values.emplace_back(std::string(text));
        }
        return of_index[id];
    }
    // Codes renumbered in the values' sorted order (⊥ last), so ties resolve the same in any scan order.
    std::vector<uint32_t> sorted_codes() const {
        std::vector<uint32_t> order(values.size());
        for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
        std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
            if (!values[a] || !values[b]) return values[a].has_value() && !values[b].has_value();
            return *values[a] < *values[b];
        });
        std::vector<uint32_t> rank(values.size());
        for (uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
        return rank;
    }
    std::vector<uint32_t> of_index;
};

// Reads `expressions` (already quoted SQL over the source) for every row, as codes per column.
struct ReadColumns {
    std::vector<ColumnCodes> columns;
    std::vector<std::vector<uint32_t>> rows;  // codes per row
};

ReadColumns read_columns(const SourceRelation& source, const std::vector<std::string>& expressions,
                         const std::vector<SpiArg>& args) {
    std::vector<std::string> as_text;
    for (const std::string& e : expressions) as_text.push_back("(" + e + ")::pg_catalog.text");
    const std::string select = source_select(source, as_text);
    ReadColumns r;
    r.columns.resize(expressions.size());
    Spi spi;
    uint64_t n = 0;
    stream_rows(select, args, [&](const Datum* values, const bool* nulls) {
        std::vector<uint32_t> row(expressions.size());
        for (std::size_t i = 0; i < expressions.size(); ++i)
            row[i] = r.columns[i].code(nulls[i], nulls[i] ? std::string_view() : text_bytes(values[i]));
        r.rows.push_back(std::move(row));
        if ((++n & 4095) == 0) pg_call([] { CHECK_FOR_INTERRUPTS(); });
    });
    spi.finish();
    return r;
}

// The column list with optional hierarchies and levels: gen() expressions, the domain sizes of the levels.
struct Published {
    std::vector<std::string> names, expressions;
    std::vector<SpiArg> args;
    std::vector<std::optional<std::string>> hierarchies;
    std::vector<long> levels;
};

Published published_columns(const SourceRelation& source, FunctionCallInfo fcinfo, int columns_arg, int hierarchies_arg,
                            int levels_arg, const char* role) {
    Published p;
    auto columns = text_array_arg_values(fcinfo, columns_arg, role, false);
    if (columns.empty()) fail(ErrorKind::InvalidParameter, std::string(role) + " must name at least one column");
    if (hierarchies_arg >= 0 && !PG_ARGISNULL(hierarchies_arg))
        p.hierarchies = text_array_arg_values(fcinfo, hierarchies_arg, "hierarchies", true);
    if (levels_arg >= 0 && !PG_ARGISNULL(levels_arg)) p.levels = int4_array_arg_values(fcinfo, levels_arg, "levels");
    if (!p.hierarchies.empty() && p.hierarchies.size() != columns.size())
        fail(ErrorKind::InvalidParameter, "hierarchies must have one entry per column (" +
                                              std::to_string(columns.size()) + "), got " +
                                              std::to_string(p.hierarchies.size()));
    if (!p.levels.empty() && p.levels.size() != columns.size())
        fail(ErrorKind::InvalidParameter, "levels must have one entry per column (" + std::to_string(columns.size()) +
                                              "), got " + std::to_string(p.levels.size()));
    p.hierarchies.resize(columns.size());
    p.levels.resize(columns.size(), 0);
    for (std::size_t i = 0; i < columns.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j)
            if (*columns[j] == *columns[i])
                fail(ErrorKind::InvalidParameter, "column " + quote_value(*columns[i]) + " is listed twice");
        SourceColumn c = source_column(source, *columns[i], "the");
        p.names.push_back(*columns[i]);
        if (p.levels[i] != 0) {
            if (!p.hierarchies[i])
                fail(ErrorKind::InvalidParameter, "column " + quote_value(*columns[i]) + " has level " +
                                                      std::to_string(p.levels[i]) + " but no hierarchy");
            p.args.push_back(text_arg(*p.hierarchies[i]));
            p.args.push_back(int4_arg(static_cast<int>(p.levels[i])));
            p.expressions.push_back("privrisk.gen(" + c.quoted + ", $" + std::to_string(p.args.size() - 1) + ", $" +
                                    std::to_string(p.args.size()) + ")");
        } else {
            p.expressions.push_back(c.quoted);
        }
    }
    return p;
}

// The domain size of a column at its published level: a tree hierarchy's node
// count at that level; otherwise the distinct values the data holds.
double domain_size(const Published& p, std::size_t i, const ColumnCodes& data) {
    if (p.hierarchies[i]) {
        Spi spi;
        uint64 n = spi.run(
            "SELECT pg_catalog.count(DISTINCT privrisk.generalize($1, path[1], $2)) "
            "FROM privrisk.hierarchy_leaf WHERE hierarchy OPERATOR(pg_catalog.=) $1",
            {text_arg(*p.hierarchies[i]), int4_arg(static_cast<int>(p.levels[i]))}, true);
        long nodes = n ? spi.int8(0, 1) : 0;
        spi.finish();
        const Hierarchy& h = cached_hierarchy(*p.hierarchies[i]);
        if (p.levels[i] == h.height()) return 1;  // ⊥ alone
        if (nodes > 0) return double(nodes);
    }
    return std::max<double>(1, double(data.values.size()));
}

}  // namespace

// askari_utility(source, columns, hierarchies, levels, weights) -> jsonb (eq 8-14, bits)
PRIVRISK_FUNCTION(privrisk_askari_utility) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "source must not be NULL");
    SourceRelation source = source_relation(PG_GETARG_OID(0));
    Published p = published_columns(source, fcinfo, 1, 2, 3, "columns");
    std::vector<double> weights;
    if (!PG_ARGISNULL(4)) weights = float8_array_arg_values(fcinfo, 4, "weights");
    ReadColumns data = read_columns(source, p.expressions, p.args);
    std::vector<double> domain;
    for (std::size_t i = 0; i < p.names.size(); ++i) domain.push_back(domain_size(p, i, data.columns[i]));
    TableUtility u = table_utility(data.rows, domain, weights);
    std::string json = "{\"unit\": \"bits\", \"rows\": " + std::to_string(data.rows.size()) +
                       ", \"utility\": " + json_number(u.utility) + ", \"attributes\": [";
    for (std::size_t i = 0; i < p.names.size(); ++i) {
        const auto& a = u.attributes[i];
        json += std::string(i ? ", " : "") + "{\"column\": " + json_string(p.names[i]) +
                ", \"level\": " + std::to_string(p.levels[i]) + ", \"domain_size\": " + json_number(domain[i]) +
                ", \"h_max\": " + json_number(a.h_max) + ", \"entropy\": " + json_number(a.entropy) +
                ", \"conditional_entropy\": " + json_number(a.conditional) + ", \"u1\": " + json_number(a.u1) +
                ", \"u_max\": " + json_number(a.u_max) + "}";
    }
    return jsonb_datum(json + "]}");
}

// classification_accuracy(source, features, target, classifier, folds, hierarchies, levels, fold_columns) -> jsonb
PRIVRISK_FUNCTION(privrisk_classification_accuracy) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "source must not be NULL");
    SourceRelation source = source_relation(PG_GETARG_OID(0));
    std::vector<std::optional<std::string>> features;
    if (!PG_ARGISNULL(1)) features = text_array_arg_values(fcinfo, 1, "features", false);
    std::string target(text_arg_view(fcinfo, 2, "target"));
    std::string classifier = PG_ARGISNULL(3) ? "naive_bayes" : std::string(text_view(PG_GETARG_DATUM(3)));
    ClassifierKind kind = choice_arg<ClassifierKind>(
        fcinfo, 3, "classifier", "naive_bayes",
        {{"naive_bayes", ClassifierKind::NaiveBayes}, {"majority", ClassifierKind::MajorityClass}});
    int folds = PG_ARGISNULL(4) ? 10 : PG_GETARG_INT32(4);
    if (folds < 2 || folds > 1000)
        fail(ErrorKind::InvalidParameter, "folds must be in 2..1000, got " + std::to_string(folds));
    for (const auto& f : features)
        if (*f == target) fail(ErrorKind::InvalidParameter, "the target " + quote_value(target) + " is also a feature");

    // Features (generalized where levels say so), the target, then the fold columns' original values.
    Published p;
    if (!features.empty()) p = published_columns(source, fcinfo, 1, 5, 6, "features");
    const std::size_t width = p.names.size();
    std::vector<std::string> expressions = p.expressions;
    expressions.push_back(source_column(source, target, "target").quoted);
    std::vector<std::optional<std::string>> fold_columns;
    if (!PG_ARGISNULL(7)) fold_columns = text_array_arg_values(fcinfo, 7, "fold_columns", false);
    if (fold_columns.empty()) {
        fold_columns = features;
        fold_columns.emplace_back(target);
    }
    for (const auto& f : fold_columns) expressions.push_back(source_column(source, *f, "fold").quoted);
    ReadColumns data = read_columns(source, expressions, p.args);

    LabeledRows rows;
    rows.width = width;
    std::vector<std::vector<uint32_t>> rank(width + 1);
    for (std::size_t c = 0; c <= width; ++c) rank[c] = data.columns[c].sorted_codes();
    for (std::size_t c = 0; c < width; ++c)
        rows.cardinality.push_back(static_cast<uint32_t>(data.columns[c].values.size()));
    rows.classes = static_cast<uint32_t>(data.columns[width].values.size());
    std::map<std::vector<uint32_t>, uint64_t> occurrences;  // of each fold key (identical rows)
    for (const auto& row : data.rows) {
        for (std::size_t c = 0; c < width; ++c) rows.features.push_back(rank[c][row[c]]);
        rows.target.push_back(rank[width][row[width]]);
        // FNV-1a of the fold columns' values (each followed by 0x1f; NULL as 0x1e), plus the
        // occurrence among identical rows, modulo 2^64, modulo folds.
        uint64_t h = fnv1a("", 0);
        std::vector<uint32_t> key(row.begin() + width + 1, row.end());
        for (std::size_t c = width + 1; c < row.size(); ++c) {
            const auto& v = data.columns[c].values[row[c]];
            if (v) h = fnv1a(v->data(), v->size(), h);
            const char sep = v ? '\x1f' : '\x1e';
            h = fnv1a(&sep, 1, h);
        }
        uint64_t occurrence = occurrences[key]++;
        rows.fold.push_back(static_cast<uint32_t>((h + occurrence) % uint64_t(folds)));
    }
    auto cv = cross_validate(rows, kind, static_cast<uint32_t>(folds));
    std::string json = "{\"classifier\": " + json_string(classifier) + ", \"folds\": " + std::to_string(folds) +
                       ", \"rows\": " + std::to_string(cv.rows) + ", \"correct\": " + std::to_string(cv.correct) +
                       ", \"accuracy\": " + json_number(cv.accuracy) + "}";
    return jsonb_datum(json);
}
