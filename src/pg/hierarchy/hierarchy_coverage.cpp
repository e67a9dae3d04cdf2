#include "hierarchy/hierarchy_coverage.hpp"

#include "common/error.hpp"
#include "common/spi.hpp"
#include "common/value_text.hpp"
#include "hierarchy/hierarchy_catalog.hpp"

namespace privrisk::pg {

namespace {

constexpr std::size_t kShownValues = 5;

std::string sql_literal(const std::string& s) {
    std::string out = "'";
    for (char c : s) out += c == '\'' ? std::string("''") : std::string(1, c);
    return out + "'";
}

std::string plural(int64_t n, const char* one, const char* many) {
    return std::to_string(n) + " " + (n == 1 ? one : many);
}

}  // namespace

std::vector<UncoveredValue> uncovered_values(const SourceRelation& source, const SourceColumn& column,
                                             const std::string& hierarchy) {
    // As the caller: PostgreSQL checks the right to read the column. Each value by the text
    // gen() looks it up by, its canonical text (value_text.hpp); an install whose SQL is
    // older than canonical_text() lists them by ::text, as it did.
    const std::string text = (canonical_text_installed() ? "privrisk.canonical_text(" + column.quoted + ")"
                                                         : "(" + column.quoted + ")::pg_catalog.text");
    std::string sql = source_select(source, {text, "pg_catalog.count(*)"}) + " WHERE " + column.quoted +
                      " IS NOT NULL GROUP BY 1 ORDER BY 2 DESC, 1";
    std::vector<UncoveredValue> values;
    Spi spi;
    uint64 n = spi.run(sql.c_str(), {}, true);
    for (uint64 r = 0; r < n; ++r) values.push_back({spi.string(r, 1), spi.int8(r, 2), {}});
    spi.finish();
    // Looked up after the query: a cache entry is only valid until the next catalog change is seen.
    const Hierarchy& h = cached_hierarchy(hierarchy);
    std::vector<UncoveredValue> missing;
    for (UncoveredValue& v : values) {
        try {
            int level = h.level_of(v.value);
            if (level > 0) v.reason = "a node of level " + std::to_string(level) + ", not a leaf";
        } catch (const Error& e) {
            v.reason = e.what();
        }
        if (!v.reason.empty()) missing.push_back(std::move(v));
    }
    return missing;
}

void require_covered(const SourceRelation& source, const SourceColumn& column, const std::string& hierarchy) {
    std::vector<UncoveredValue> missing = uncovered_values(source, column, hierarchy);
    if (missing.empty()) return;
    int64_t rows = 0;
    for (const UncoveredValue& m : missing) rows += m.rows;
    std::string shown;
    for (std::size_t i = 0; i < missing.size() && i < kShownValues; ++i)
        shown += (i ? ", " : "") + quote_value(missing[i].value) + " (" + plural(missing[i].rows, "row", "rows") + ")";
    if (missing.size() > kShownValues) shown += " and " + std::to_string(missing.size() - kShownValues) + " more";
    fail(ErrorKind::InvalidParameter,
         "hierarchy " + quote_value(hierarchy) + " does not cover " +
             plural(int64_t(missing.size()), "value", "values") + " of column " + quote_value(column.name) + " of " +
             source.name + " (" + plural(rows, "row", "rows") + "): " + shown,
         "SELECT * FROM privrisk.hierarchy_coverage(" + sql_literal(source.qualified) + ", " +
             sql_literal(column.name) + ", " + sql_literal(hierarchy) +
             ") lists every one with its row count and why; add them to the hierarchy as leaves, or map them "
             "to values it holds.");
}

void explaining_uncovered(const SourceRelation& source,
                          const std::vector<std::pair<SourceColumn, std::string>>& columns,
                          const std::function<void()>& fn) {
    // No subtransaction may start during a parallel operation (audit() above a Gather):
    // there the first value that generalize() refuses is the error.
    if (columns.empty() || pg_call([] { return IsInParallelMode(); })) return fn();
    try {
        in_subtransaction([](int) { return false; }, fn);
    } catch (const PgError& e) {  // in_subtransaction's copy, in this context: it outlives the rollback
        if (e.data()->sqlerrcode == ERRCODE_INVALID_PARAMETER_VALUE)
            for (const auto& [column, hierarchy] : columns) require_covered(source, column, hierarchy);
        throw;
    } catch (const UncoveredValueError&) {  // refused in C++ (audit's class reader generalizes each value there)
        for (const auto& [column, hierarchy] : columns) require_covered(source, column, hierarchy);
        throw;
    }
}

}  // namespace privrisk::pg
