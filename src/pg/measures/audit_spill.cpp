#include "measures/audit_spill.hpp"

#include <optional>
#include <string_view>

#include "common/args.hpp"
#include "common/error.hpp"
#include "common/memory_limit.hpp"
#include "common/row_stream.hpp"
#include "common/value_text.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "hierarchy/hierarchy_coverage.hpp"
#include "measures/audit_levels.hpp"

extern "C" {
#include "utils/builtins.h"
#include "utils/lsyscache.h"
}

namespace privrisk::pg {

namespace {

// A column's canonical text (what gen() looks a value up by) in SQL: a cast where
// that is the text, privrisk.canonical_text() for the types only C++ writes.
std::string canonical(const SourceColumn& column) {
    std::string sql = canonical_text_sql(column);
    if (!sql.empty()) return sql;
    if (!canonical_text_installed())
        fail(ErrorKind::UndefinedObject,
             "audit: past privrisk.audit_memory_limit, a quasi-identifier of type " +
                 std::string(pg_call([&] { return format_type_be(column.type); })) +
                 " with a hierarchy is grouped by privrisk.canonical_text(), which this database's SQL lacks",
             "ALTER EXTENSION privrisk UPDATE");
    return "privrisk.canonical_text(" + column.quoted + ")";
}

// Byte for byte, as gen() looks values up and the class reader keys them: DISTINCT,
// = and GROUP BY under a case-insensitive collation would merge 'a' and 'A'.
std::string bytewise(const std::string& sql) { return "(" + sql + ") COLLATE pg_catalog.\"C\""; }

// One hierarchy column's distinct values and their generalizations, as read.
struct LevelMap {
    std::size_t column;  // index among the quasi-identifiers
    std::vector<std::string> values;
    std::vector<std::optional<std::string>> generalized;
};

// The distinct values of each hierarchy column, each generalized once here.
// An infinite date fails as gen() refuses it (canonical_text() writes it, for a sensitive value).
std::vector<LevelMap> read_level_maps(const std::string& distinct, const std::vector<ClassColumn>& columns) {
    HierarchyPins pins;
    std::vector<LevelMap> maps;
    std::vector<const Hierarchy*> hierarchies;
    std::vector<bool> dates;
    for (std::size_t j = 0; j < columns.size(); ++j)
        if (columns[j].hierarchy) {
            maps.push_back({j, {}, {}});
            hierarchies.push_back(&pins.pin(*columns[j].hierarchy));
            dates.push_back(pg_call([&] { return value_text_kind(columns[j].column.type); }) == ValueText::Date);
        }
    if (maps.empty()) return maps;
    const MemoryBound bound = memory_bound();
    std::size_t held = 0;
    std::string scratch;
    stream_rows(distinct, {}, [&](const Datum* values, const bool*) {
        const auto m = static_cast<std::size_t>(DatumGetInt32(values[0]));
        const std::string_view value = text_view(values[1]);
        if (dates[m] && (value == "infinity" || value == "-infinity"))
            throw UncoveredValueError(
                Error(ErrorKind::InvalidParameter, "gen: an infinite date has no generalization"));
        Value g = audited_level(*hierarchies[m], value, columns[maps[m].column].level, scratch);
        // here, each element's text for the arrays, the query's two text[] parameters, the plan's copy of them
        held += 4 * (2 * sizeof(std::string) + value.size() + (g ? g->size() : 0));
        bound.check(held, "audit: the distinct values of its spilling GROUP BY",
                    "raise privrisk.memory_limit, or audit fewer quasi-identifiers with a hierarchy");
        maps[m].values.emplace_back(value);
        maps[m].generalized.emplace_back(g ? std::optional<std::string>(std::string(*g)) : std::nullopt);
    });
    pins.check("while the source was read; run the audit again");
    return maps;
}

}  // namespace

SpillQuery spilling_group_query(const AuditSource& a, const std::vector<Shard>& shards) {
    const bool sharded = !shards.empty();
    const std::size_t width = a.columns.size();
    // The level-0 rows (or shards' classes) as r(q0, …[, s]) or c(q0, …, h); a
    // hierarchy column by its canonical text, written here or (shards) on the coordinator.
    std::vector<SourceColumn> keys;
    std::string names, distinct;
    for (std::size_t j = 0; j < width; ++j) {
        const SourceColumn& column = a.columns[j].column;
        const std::string q = "q" + std::to_string(j);
        names += (j ? ", " : "") + q;
        // read here as its canonical text already, from a shard as it is
        const Oid type = !sharded && a.columns[j].hierarchy ? TEXTOID : column.type;
        keys.push_back({column.name, (sharded ? "c." : "r.") + q, column.attnum, type});
    }
    std::string from;
    if (sharded) {
        from = "(" + shard_classes_query(shards, plain_columns(a.columns), a.sensitive) + ") AS c(" + names + ", h)";
    } else {
        std::vector<std::string> expressions;
        for (const ClassColumn& c : a.columns)
            expressions.push_back(c.hierarchy ? bytewise(canonical(c.column)) : c.column.quoted);
        if (a.sensitive) expressions.push_back(a.sensitive->quoted);
        from = "(" + source_select(a.source, expressions) + ") AS r(" + names + (a.sensitive ? ", s)" : ")");
    }
    // The distinct-value pass: over the rows, or each shard's distinct values.
    int m = 0;
    for (std::size_t j = 0; j < width; ++j) {
        if (!a.columns[j].hierarchy) continue;
        const std::string index = std::to_string(m++);
        if (sharded) {
            for (const Shard& s : shards)
                distinct += (distinct.empty() ? "" : " UNION ") + std::string("SELECT ") + index + ", " +
                            bytewise("d.t") + " FROM (SELECT " + canonical(a.columns[j].column) + " AS t FROM " +
                            s.qualified + " GROUP BY 1) AS d";
        } else {
            distinct += (distinct.empty() ? "" : ", ") + std::string("(") + index + ", " + canonical(keys[j]) + ")";
        }
    }
    if (!sharded && m > 0)
        distinct = "SELECT DISTINCT v.j, v.t FROM " + from + " CROSS JOIN LATERAL (VALUES " + distinct + ") AS v(j, t)";
    if (m > 0) distinct = "SELECT l.j, l.t FROM (" + distinct + ") AS l(j, t) WHERE l.t IS NOT NULL";
    std::vector<LevelMap> maps = read_level_maps(distinct, a.columns);

    // The grouping query: each row's (class's) value joined to its generalization.
    SpillQuery out;
    std::string joins, group, unmatched;
    std::size_t next = 0;
    for (std::size_t j = 0; j < width; ++j) {
        group += j ? ", " : " GROUP BY ";
        if (next < maps.size() && maps[next].column == j) {
            const LevelMap& map = maps[next];
            std::vector<std::optional<std::string_view>> generalized(map.generalized.begin(), map.generalized.end());
            out.args.push_back(text_array_arg(map.values));
            out.args.push_back(text_array_arg(generalized));
            const std::string mj = "m" + std::to_string(j), key = canonical(keys[j]);
            joins += " LEFT JOIN ROWS FROM (pg_catalog.unnest($" + std::to_string(2 * next + 1) +
                     "::pg_catalog.text[]), pg_catalog.unnest($" + std::to_string(2 * next + 2) +
                     "::pg_catalog.text[])) AS " + mj + "(v, g) ON " + mj + ".v OPERATOR(pg_catalog.=) " +
                     bytewise(key);
            unmatched +=
                (unmatched.empty() ? "" : " OR ") + std::string("(") + mj + ".v IS NULL AND " + key + " IS NOT NULL)";
            group += mj + ".g";
            ++next;
        } else if (pg_call([&] { return type_is_collatable(keys[j].type); })) {
            group += bytewise(keys[j].quoted);
        } else {
            group += keys[j].quoted;
        }
    }
    const std::string hist =
        sharded ? "privrisk.hist_merge(c.h)" : std::string("privrisk.hist(") + (a.sensitive ? "r.s)" : "*)");
    out.sql = "SELECT " + hist + ", " +
              (unmatched.empty() ? std::string("0::pg_catalog.int8")
                                 : "pg_catalog.count(*) FILTER (WHERE " + unmatched + ")") +
              " FROM " + from + joins + group;
    return out;
}

}  // namespace privrisk::pg
