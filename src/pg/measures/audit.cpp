// privrisk.audit (docs/measures.md): every applicable measure of one release in one
// read of the source (audit_read.hpp decides how), reported as jsonb.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include "ck/ck_safety.hpp"
#include "classes/class_query.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/source_columns.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "hierarchy/hierarchy_coverage.hpp"
#include "measures/audit_read.hpp"
#include "measures/measure_registry.hpp"
#include "measures/measures.hpp"
#include "profiles/release_measures.hpp"

using namespace privrisk;
using namespace privrisk::pg;

// The body of audit_classes(), below.
static Datum audit_classes(FunctionCallInfo fcinfo) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "source must not be NULL");
    Oid relid = PG_GETARG_OID(0);
    auto qi = text_array_arg_values(fcinfo, 1, "quasi_identifiers", false);
    std::optional<std::string> sensitive;
    if (!PG_ARGISNULL(2)) sensitive = std::string(text_view(PG_GETARG_DATUM(2)));
    auto hierarchies = text_array_arg_values(fcinfo, 3, "hierarchies", true);
    std::vector<long> levels;
    if (!PG_ARGISNULL(4)) levels = int4_array_arg_values(fcinfo, 4, "levels");
    double threshold = PG_ARGISNULL(5) ? kDefaultRiskThreshold : PG_GETARG_FLOAT8(5);
    double c = PG_ARGISNULL(6) ? kDefaultLC : PG_GETARG_FLOAT8(6);
    std::optional<std::string> sensitive_hierarchy;
    if (!PG_ARGISNULL(7)) sensitive_hierarchy = std::string(text_view(PG_GETARG_DATUM(7)));
    int kmax = PG_NARGS() > 8 && !PG_ARGISNULL(8) ? PG_GETARG_INT32(8) : kDefaultCkK;
    check_threshold(threshold);
    check_c(c);
    check_ck_k(kmax);

    // The relation and its columns; names are quoted, never spliced.
    AuditSource audited{source_relation(relid), {}, std::nullopt};
    audited.columns = class_columns(audited.source, qi, hierarchies, levels);
    if (sensitive) audited.sensitive = source_column(audited.source, *sensitive, "sensitive");
    AuditRead read = read_audit_classes(audited);
    const ContingencyTable& table = read.table;
    auto scanned = std::chrono::steady_clock::now();

    // Every measure of the registry that applies, under its one key.
    MeasureParameters params{threshold, c, nullptr};
    if (sensitive && sensitive_hierarchy) params.sensitive_hierarchy = &cached_hierarchy(*sensitive_hierarchy);
    const std::string json = release_measures(table, sensitive.has_value(), params, kmax).json();
    auto measured = std::chrono::steady_clock::now();
    double measure_ms = std::chrono::duration<double, std::milli>(measured - scanned).count();
    long long rows = table.rows(), classes = table.classes();
    pg_call([&] {
        elog(DEBUG1, "audit: %lld rows into %lld classes: scan %.1f ms (%s, %zu kB), table %.1f ms, measures %.1f ms",
             rows, classes, read.scan_ms, read.how.c_str(), read.peak / 1024, read.finish_ms, measure_ms);
    });
    return jsonb_datum(json);
}

// audit_classes(source, quasi_identifiers, sensitive, hierarchies, levels,
//               risk_threshold, l_c, sensitive_hierarchy, kmax) -> jsonb
// The SQL wrapper privrisk.audit() unpacks the options and calls this. A value
// that a hierarchy lacks fails it with one error that counts all of them.
PRIVRISK_FUNCTION(privrisk_audit_classes) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "source must not be NULL");
    SourceRelation source = source_relation(PG_GETARG_OID(0));
    std::vector<long> levels;
    if (!PG_ARGISNULL(4)) levels = int4_array_arg_values(fcinfo, 4, "levels");
    std::vector<std::pair<SourceColumn, std::string>> generalized;
    for (ClassColumn& c : class_columns(source, text_array_arg_values(fcinfo, 1, "quasi_identifiers", false),
                                        text_array_arg_values(fcinfo, 3, "hierarchies", true), levels))
        if (c.hierarchy) generalized.emplace_back(std::move(c.column), std::move(*c.hierarchy));
    Datum result = 0;
    explaining_uncovered(source, generalized, [&] { result = audit_classes(fcinfo); });
    return result;
}
