// privrisk.search / privrisk.lattice (docs/search.md): one scan of the source builds
// the level-0 classes (each quasi-identifier coded, each distinct
// value generalized once per level); the lattice search itself runs in C++
// (src/core/lattice_search), cancellable between and inside node evaluations.
#include <chrono>
#include <charconv>
#include <cmath>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/activity_progress.hpp"
#include "common/progress.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "common/text_ids.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "hierarchy/hierarchy_coverage.hpp"
#include "common/json_text.hpp"
#include "common/memory_limit.hpp"
#include "measures/measure_registry.hpp"
#include "ck/ck_safety.hpp"
#include "measures/measures.hpp"
#include "profiles/profile_verdict.hpp"
#include "search/lattice_search.hpp"
#include "search/nothing_found.hpp"
#include "common/spi.hpp"
#include "search/search.hpp"
#include "search/search_constraints.hpp"
#include "common/source_columns.hpp"
#include "classes/coded_classes.hpp"
#include "common/value_text.hpp"

extern "C" {
#include "miscadmin.h"
#include "utils/guc.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace privrisk::pg {

int search_progress_interval_ms = 5000;

void register_search_settings() {
    DefineCustomIntVariable("privrisk.search_progress_interval",
                            "Interval between the NOTICEs that report a running search's progress (0: none).", nullptr,
                            &search_progress_interval_ms, 5000, 0, INT_MAX, PGC_USERSET, GUC_UNIT_MS, nullptr, nullptr,
                            nullptr);
}

}  // namespace privrisk::pg

namespace {

// One node's entry in lattice()'s jsonb: its text (about 300 bytes for 5 quasi-identifiers) and,
// the most of it, PostgreSQL's parse of that text into jsonb (measured: 8.3 kB per node in all
// for 5 quasi-identifiers, in test/regress/sql/memory_limits.sql).
constexpr std::size_t kReportJsonBytes(std::size_t width) { return 6000 + 400 * width; }

std::string report_json(const NodeReport& r, const std::vector<LatticeDimension>& dims, const Constraints& q,
                        UtilityMetric metric, int64_t rows) {
    std::string node, levels;
    int height = 0, kept = 0;
    for (std::size_t j = 0; j < dims.size(); ++j) {
        node += (j ? ", " : "") + std::to_string(r.levels[j]);
        levels += (j ? ", " : "") + json_string(dims[j].name) + ": " + std::to_string(r.levels[j]);
        height += r.levels[j];
        kept += dims[j].height() - r.levels[j];
    }
    std::string json = "{\"node\": [" + node + "], \"levels\": {" + levels + "}";
    json += ", \"qualifies\": " + std::string(r.safe ? "true" : "false");
    json += ", \"utility\": " + json_number(metric == UtilityMetric::LevelsKept ? -r.utility : r.utility);
    json += ", \"height\": " + std::to_string(height) + ", \"levels_kept\": " + std::to_string(kept);
    json += ", \"rows\": " + std::to_string(rows) + ", \"rows_suppressed\": " + std::to_string(r.suppressed);
    json += ", \"rows_violating\": " + std::to_string(r.violating);
    json += ", \"measures\": {\"classes\": " + std::to_string(r.classes);
    // Under the registry's keys, as audit() reports them: l-diversity and
    // t-closeness of the kind the constraint named.
    auto key = [](MeasureId id) { return std::string(", \"") + measure_info(id).key + "\": "; };
    json += key(MeasureId::KAnonymity) + json_integer(r.k);
    json += key(MeasureId::ProsecutorRisk) + json_number(r.max_risk);
    json += key(MeasureId::AverageRisk) + json_number(r.average_risk);
    if (q.l)
        json += key(q.l_kind == LDiversity::Distinct  ? MeasureId::LDistinct
                    : q.l_kind == LDiversity::Entropy ? MeasureId::LEntropy
                                                      : MeasureId::LRecursive) +
                json_number(r.l);
    if (q.t)
        json += key(q.t_kind == TCloseness::Equal     ? MeasureId::TEqual
                    : q.t_kind == TCloseness::Ordered ? MeasureId::TOrdered
                                                      : MeasureId::THierarchical) +
                json_number(r.t);
    if (q.delta) json += key(MeasureId::DeltaDisclosure) + json_number(r.delta);
    if (q.c) json += key(MeasureId::CkMaxDisclosure) + json_number(r.ck);
    return json + "}}";
}

std::string checks_json(const std::vector<ConstraintCheck>& checks, bool failed_only) {
    std::string out;
    for (const ConstraintCheck& c : checks) {
        if (failed_only && c.passed) continue;
        out += (out.empty() ? "{" : ", {") + std::string("\"constraint\": ") + json_string(c.constraint) +
               ", \"value\": " + json_number(c.value) + ", \"threshold\": " + json_number(c.threshold) +
               ", \"passed\": " + (c.passed ? "true" : "false") + "}";
    }
    return "[" + out + "]";
}

// Why nothing qualifies (docs/search.md): the top node against each constraint, and the
// nearest node: the best under the constraints that pass at the top, measured against all.
// For monotone constraints every node fails what the top fails, so it fails the fewest.
std::string nothing_found_json(GeneralizationLattice& lattice, const std::vector<LatticeDimension>& dims,
                               const Constraints& q, int64_t rows) {
    std::vector<int> top(dims.size());
    for (std::size_t j = 0; j < dims.size(); ++j) top[j] = dims[j].height();
    const std::vector<ConstraintCheck> at_top = check_constraints(lattice.evaluate(top), q, rows);
    lattice.set_constraints(without_failed(q, at_top));
    SearchResult relaxed = lattice.search();
    const std::vector<int> levels = relaxed.best ? relaxed.best->levels : top;
    lattice.set_constraints(q);
    const NodeReport nearest = lattice.evaluate(levels);
    const std::vector<ConstraintCheck> violations = check_constraints(nearest, q, rows);
    std::string levels_json, levels_text, top_text;
    for (std::size_t j = 0; j < dims.size(); ++j) {
        levels_json += (j ? ", " : "") + json_string(dims[j].name) + ": " + std::to_string(levels[j]);
        levels_text += (j ? ", " : "") + dims[j].name + ": " + std::to_string(levels[j]);
        top_text += (j ? ", " : "") + dims[j].name + ": " + std::to_string(top[j]);
    }
    return "{\"summary\": " + json_string(nothing_found_summary(top_text, at_top, q, levels_text, violations)) +
           ", \"at_top\": " + checks_json(at_top, false) + ", \"nearest\": {\"levels\": {" + levels_json +
           "}, \"rows_suppressed\": " + std::to_string(nearest.suppressed) +
           ", \"violations\": " + checks_json(violations, true) + "}}";
}

// Each quasi-identifier's hierarchy height (0: none), for the class reader's estimate.
std::vector<int> heights(const std::vector<const Hierarchy*>& hierarchies) {
    std::vector<int> h;
    for (const Hierarchy* hierarchy : hierarchies) h.push_back(hierarchy ? hierarchy->height() : 0);
    return h;
}

// t_ordered orders the sensitive values as numbers; audit() reports it only when they all
// are (measure_registry): the search measures what audit() would, or says why it cannot.
void require_numbers(const std::vector<std::optional<std::string>>& sensitive_values) {
    bool any = false;
    for (const auto& v : sensitive_values) {
        if (!v) continue;
        any = true;
        if (!is_number(*v))
            fail(ErrorKind::InvalidParameter, "t_kind ordered needs numeric sensitive values; " + quote_value(*v) +
                                                  " is not a number (use t_kind equal)");
    }
    if (!any) fail(ErrorKind::InvalidParameter, "t_kind ordered needs numeric sensitive values; there are none");
}

// The lattice's search statistics in search()'s and lattice()'s result.
std::string search_stats_json(const SearchStats& stats, int workers, double scan_ms, double ms) {
    return "{\"nodes\": " + std::to_string(stats.nodes) + ", \"evaluated\": " + std::to_string(stats.evaluated) +
           ", \"tagged\": " + std::to_string(stats.tagged) + ", \"bounded\": " + std::to_string(stats.bounded) +
           ", \"classes_rolled_up\": " + std::to_string(stats.rolled_up) + ", \"pruning\": " +
           (stats.monotone ? "\"monotone constraints and utility bound\"" : "\"utility bound only\"") +
           ", \"scan_workers\": " + std::to_string(workers) +
           ", \"scan_ms\": " + json_number(std::round(scan_ms * 10) / 10) +
           ", \"ms\": " + json_number(std::round(ms * 10) / 10) + "}";
}

// The lattice's dimensions: each distinct value read generalized once per level,
// ids dense per level, ⊥ (the height) id 0. Every value must be a leaf of its
// hierarchy; if one is not, the error counts them all.
std::vector<LatticeDimension> lattice_dimensions(const SourceRelation& source, const std::vector<SourceColumn>& columns,
                                                 const std::vector<std::optional<std::string>>& qi,
                                                 const std::vector<std::optional<std::string>>& hierarchy_names,
                                                 const std::vector<const Hierarchy*>& hierarchies,
                                                 const CodedClasses& read) {
    const std::size_t width = qi.size();
    std::vector<LatticeDimension> dims(width);
    for (std::size_t j = 0; j < width; ++j) {
        const std::vector<std::optional<std::string>>& values = read.values[j];
        const Hierarchy* h = hierarchies[j];
        LatticeDimension& dim = dims[j];
        dim.name = *qi[j];
        const int height = h ? h->height() : 0;
        dim.ancestor.assign(height + 1, std::vector<uint32_t>(values.size(), 0));
        for (uint32_t code = 0; code < values.size(); ++code) dim.ancestor[0][code] = code;
        if (h)
            for (const auto& v : values)
                if (v) {
                    bool leaf = false;
                    try {
                        leaf = h->level_of(*v) == 0;
                    } catch (const Error&) {
                    }
                    if (!leaf) {
                        require_covered(source, columns[j], *hierarchy_names[j]);
                        // Not seen again (the rows changed since the scan): this value alone.
                        fail(ErrorKind::InvalidParameter, "quasi-identifier " + quote_value(dim.name) + ": value " +
                                                              quote_value(*v) + " is not a leaf of hierarchy " +
                                                              quote_value(h->name()));
                    }
                }
        std::string scratch_text;
        for (int level = 1; level < height; ++level) {
            std::unordered_map<std::string, uint32_t> ids;
            for (uint32_t code = 0; code < values.size(); ++code) {
                std::string key = "\x01";  // ⊥ (NULL) stays apart below the height
                if (values[code]) {
                    Value g = h->generalize(*values[code], level, scratch_text);
                    key = "\x02" + std::string(g ? *g : std::string_view());
                }
                dim.ancestor[level][code] = ids.try_emplace(key, static_cast<uint32_t>(ids.size())).first->second;
            }
        }
    }

    return dims;
}

// The utility metric argument `i` (loss when NULL).
UtilityMetric utility_metric(FunctionCallInfo fcinfo, int i) {
    return choice_arg<UtilityMetric>(fcinfo, i, "utility", "loss",
                                     {{"loss", UtilityMetric::Loss},
                                      {"height", UtilityMetric::Height},
                                      {"discernibility", UtilityMetric::Discernibility},
                                      {"entropy", UtilityMetric::Entropy},
                                      {"levels_kept", UtilityMetric::LevelsKept}});
}

// The quasi-identifiers (each once) and the sensitive column of the source; each
// quasi-identifier's hierarchy pinned for the search (nullptr: none) into `hierarchies`.
std::vector<SourceColumn> searched_columns(const SourceRelation& source,
                                           const std::vector<std::optional<std::string>>& qi,
                                           const std::vector<std::optional<std::string>>& hierarchy_names,
                                           const std::optional<std::string>& sensitive, HierarchyPins& pins,
                                           std::vector<const Hierarchy*>& hierarchies) {
    std::vector<SourceColumn> columns;
    for (std::size_t j = 0; j < qi.size(); ++j) {
        for (std::size_t i = 0; i < j; ++i)
            if (*qi[i] == *qi[j])
                fail(ErrorKind::InvalidParameter, "quasi-identifier " + quote_value(*qi[j]) + " is listed twice");
        columns.push_back(source_column(source, *qi[j], "quasi-identifier"));
        hierarchies.push_back(hierarchy_names[j] ? &pins.pin(*hierarchy_names[j]) : nullptr);
    }
    if (sensitive) columns.push_back(source_column(source, *sensitive, "sensitive"));
    return columns;
}

// What was searched, at the head of search()'s and lattice()'s result.
std::string what_was_searched_json(const SourceRelation& source, const std::vector<std::optional<std::string>>& qi,
                                   const std::vector<std::optional<std::string>>& hierarchy_names,
                                   const std::string& utility, int64_t rows) {
    std::string json = "\"source\": " + json_string(source.qualified) + ", \"quasi_identifiers\": [";
    for (std::size_t j = 0; j < qi.size(); ++j) json += (j ? ", " : "") + json_string(*qi[j]);
    json += "], \"hierarchies\": [";
    for (std::size_t j = 0; j < qi.size(); ++j)
        json += (j ? ", " : "") + (hierarchy_names[j] ? json_string(*hierarchy_names[j]) : std::string("null"));
    return json + "], \"utility_metric\": " + json_string(utility) + ", \"rows\": " + std::to_string(rows);
}

// The verdict of `profile` on the release at the node found, none of its rows
// suppressed: from that node's classes, as audit(…, profile) would give it
// reading the source again (docs/profiles.md).
std::string node_verdict(GeneralizationLattice& lattice, const NodeReport& node, bool sensitive,
                         const std::string& profile, Oid source) {
    std::optional<ReleaseMeasures> measures;  // measured at the first threshold that needs them
    Spi spi;
    std::string json =
        profile_verdict(spi, profile, source, [&](const Threshold& t, const RiskProfile& p, std::string* why) {
            if (!measures) measures = profile_release_measures(lattice.table_at(node.levels), sensitive, p);
            return threshold_value(t, p, *measures, why);
        });
    spi.finish();
    return json;
}

}  // namespace

// search_lattice(source, quasi_identifiers, hierarchies, sensitive, k, l, l_kind, l_c, t, t_kind,
//                t_hierarchy, delta, c, ck_k, max_risk, average_risk, max_suppression, utility,
//                every_node) -> jsonb. The SQL functions search() and lattice() unpack their options into it.
// The 19-argument search_lattice of 0.9: the released 0.9 scripts name this
// symbol (they are installed for updates along the chain); nothing calls it
// once the extension is updated.
PRIVRISK_FUNCTION(privrisk_search_lattice) {
    fail(ErrorKind::Internal,
         "privrisk.search_lattice with constraints as 15 arguments belongs to privrisk 0.9: run ALTER EXTENSION "
         "privrisk UPDATE");
}

// search_lattice(source, quasi_identifiers, hierarchies, sensitive, constraints jsonb,
//                utility, every_node, profile) -> jsonb: the search of search() and lattice(),
// with the profile's verdict on the node found when it suppresses no row.
PRIVRISK_FUNCTION(privrisk_search_nodes) {
    auto started = std::chrono::steady_clock::now();
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "source must not be NULL");
    Oid relid = PG_GETARG_OID(0);
    auto qi = text_array_arg_values(fcinfo, 1, "quasi_identifiers", false);
    if (qi.empty()) fail(ErrorKind::InvalidParameter, "quasi_identifiers must name at least one column");
    auto hierarchy_names = text_array_arg_values(fcinfo, 2, "hierarchies", true);
    if (hierarchy_names.size() != qi.size())
        fail(ErrorKind::InvalidParameter, "hierarchies must have one entry per quasi-identifier (" +
                                              std::to_string(qi.size()) + "), got " +
                                              std::to_string(hierarchy_names.size()));
    std::optional<std::string> sensitive;
    if (!PG_ARGISNULL(3)) sensitive = std::string(text_view(PG_GETARG_DATUM(3)));

    // The constraints jsonb, read once (check_options has checked each key's
    // type and range, unknown keys and keys that need others).
    const std::map<std::string, std::string> given =
        PG_ARGISNULL(4) ? std::map<std::string, std::string>{} : json_option_texts(PG_GETARG_DATUM(4));
    Constraints q = parse_constraints(given);
    if (q.needs_histograms() && !sensitive)
        fail(ErrorKind::InvalidParameter, "the l, t, delta and c constraints need a sensitive column");
    std::string utility =
        PG_ARGISNULL(5) ? "loss" : std::string(text_view(PG_GETARG_DATUM(5)));  // echoed in the result
    UtilityMetric metric = utility_metric(fcinfo, 5);
    bool every = !PG_ARGISNULL(6) && PG_GETARG_BOOL(6);
    std::optional<std::string> profile;  // 0.14's search_lattice has no profile argument
    if (PG_NARGS() > 7 && !PG_ARGISNULL(7)) profile = std::string(text_view(PG_GETARG_DATUM(7)));

    // The source and its columns; names are quoted, never spliced.
    SourceRelation source = source_relation(relid);
    HierarchyPins pins;
    std::vector<const Hierarchy*> hierarchies;
    const std::vector<SourceColumn> columns =
        searched_columns(source, qi, hierarchy_names, sensitive, pins, hierarchies);

    // The level-0 classes and the coded values, within privrisk.memory_limit (docs/memory.md).
    const std::size_t width = qi.size();
    const MemoryBound memory = memory_bound();
    CodedClasses read =
        read_coded_classes(source, {columns, width, heights(hierarchies), memory, every ? "lattice" : "search",
                                    "raise it, or search fewer quasi-identifiers"});
    const TextIds& sensitive_values = read.sensitive;
    auto scanned = std::chrono::steady_clock::now();
    if (q.t && q.t_kind == TCloseness::Ordered) require_numbers(sensitive_values.text);

    pins.check("while the source was read; run the search again");
    const std::vector<LatticeDimension> dims =
        lattice_dimensions(source, columns, qi, hierarchy_names, hierarchies, read);

    // The search, cancellable; its progress in pg_stat_activity every 100 ms for other
    // sessions (privrisk.progress), and as a NOTICE to the caller now and then.
    const char* operation = every ? "lattice" : "search";
    ActivityProgress activity(operation);
    auto last_notice = std::chrono::steady_clock::now(), last_shown = last_notice;
    auto interrupt = [&](const SearchStats& s) {
        pg_call([] { CHECK_FOR_INTERRUPTS(); });
        auto now = std::chrono::steady_clock::now();
        bool notice = search_progress_interval_ms > 0 &&
                      now - last_notice >= std::chrono::milliseconds(search_progress_interval_ms);
        if (!notice && now - last_shown < std::chrono::milliseconds(100)) return;
        Progress p{s.considered, s.nodes, std::chrono::duration<double>(now - started).count(), !every};
        std::string text = p.text("nodes considered", std::to_string(s.evaluated) + " evaluated");
        activity.show(text);
        last_shown = now;
        if (!notice) return;
        last_notice = now;
        const char* message = text.c_str();
        pg_call([&] { ereport(NOTICE, (errmsg("%s: %s", operation, message))); });
    };
    // The distinct values stay held through the search (their texts, ancestors and groups).
    MemoryBound lattice_memory = memory;
    lattice_memory.reserved = read.coded_bytes;
    lattice_memory.operation = operation;
    GeneralizationLattice lattice(dims, std::move(read.classes), sensitive_values.text, q, metric, interrupt,
                                  lattice_memory);
    constexpr int64_t kMaxListedNodes = 1'000'000;  // lattice() returns every node in one jsonb
    if (every && lattice.nodes() > kMaxListedNodes)
        fail(ErrorKind::ProgramLimit, "lattice() lists at most " + std::to_string(kMaxListedNodes) +
                                          " nodes; this one has " + std::to_string(lattice.nodes()) +
                                          " (search() takes up to " + std::to_string(GeneralizationLattice::kMaxNodes) +
                                          ")");
    const int64_t total_rows = lattice.rows();
    std::string json = "{" + what_was_searched_json(source, qi, hierarchy_names, utility, total_rows);
    SearchStats stats;
    if (every)  // the reports (held twice) and their jsonb
        lattice_memory.check(
            lattice.held_bytes() +
                std::size_t(lattice.nodes()) * (2 * GeneralizationLattice::kReportBytes + kReportJsonBytes(width)),
            "lattice: the reports of the lattice's " + std::to_string(lattice.nodes()) + " nodes",
            "raise it, or list a smaller lattice (fewer quasi-identifiers; search() keeps only what it needs)");
    if (every) {
        json += ", \"nodes\": [";
        auto all = lattice.every_node();
        for (std::size_t i = 0; i < all.size(); ++i)
            json += (i ? ", " : "") + report_json(all[i], dims, q, metric, total_rows);
        json += "]";
        stats = lattice.stats();
    } else {
        SearchResult result = lattice.search();
        stats = result.stats;
        json += ", \"found\": " + std::string(result.best ? "true" : "false");
        std::string found = result.best ? report_json(*result.best, dims, q, metric, total_rows) : "null";
        if (profile && result.best && result.best->suppressed == 0)
            found.insert(found.size() - 1, ", \"verdict\": " + node_verdict(lattice, *result.best,
                                                                            sensitive.has_value(), *profile, relid));
        json += ", \"result\": " + found;
        if (!result.best) json += ", \"nothing_found\": " + nothing_found_json(lattice, dims, q, total_rows);
    }
    activity.finish();
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
    double scan_ms = std::chrono::duration<double, std::milli>(scanned - started).count();
    json += ", \"search\": " + search_stats_json(stats, read.workers, scan_ms, ms) + "}";
    return jsonb_datum(json);
}
