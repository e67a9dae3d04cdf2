// SQL entry points for hierarchies (SPEC §4.1).
#include "args.hpp"
#include "error.hpp"
#include "hierarchy_catalog.hpp"
#include "spi.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

void refuse_existing(Spi& spi, std::string_view name) {
    if (spi.run("SELECT 1 FROM privrisk.hierarchy WHERE name = $1", {text_arg(name)}, false) > 0)
        fail(ErrorKind::DuplicateObject, "hierarchy " + quote_value(name) +
                                             " already exists; drop it first with privrisk.drop_hierarchy");
}

// Stores the leaves of a validated tree: one row per CSV record, the root kept once.
void store_tree(Spi& spi, std::string_view name, const std::vector<CsvRecord>& records, int height) {
    const std::string& root = records.front().fields.back();
    spi.run("INSERT INTO privrisk.hierarchy(name, kind, height, root) VALUES ($1, 'tree', $2, $3)",
            {text_arg(name), int4_arg(height), text_arg(root)}, false);
    // One array per level, unnested side by side: a single INSERT, linear in the input.
    std::vector<int> lines;
    std::vector<std::vector<std::optional<std::string_view>>> columns(height);
    for (const auto& rec : records) {
        lines.push_back(static_cast<int>(rec.line));
        for (int l = 0; l < height; ++l) columns[l].emplace_back(rec.fields[l]);
    }
    std::string sql = "INSERT INTO privrisk.hierarchy_leaf(hierarchy, line, path) SELECT $1, u.line, ARRAY[";
    std::string names = "line";
    for (int l = 0; l < height; ++l) {
        sql += (l ? ", u.c" : "u.c") + std::to_string(l);
        names += ", c" + std::to_string(l);
    }
    sql += "] FROM unnest($2::int4[]";
    for (int l = 0; l < height; ++l) sql += ", $" + std::to_string(l + 3) + "::text[]";
    sql += ") AS u(" + names + ")";
    std::vector<SpiArg> args{text_arg(name), int4_array_arg(lines)};
    for (int l = 0; l < height; ++l) args.push_back(text_array_arg(columns[l]));
    spi.run(sql.c_str(), args, false);
}

}  // namespace

PRIVRISK_FUNCTION(privrisk_load_hierarchy) {
    std::string_view name = text_arg_view(fcinfo, 0, "hierarchy name");
    std::string_view csv = text_arg_view(fcinfo, 1, "csv");
    std::string_view delimiter = text_arg_view(fcinfo, 2, "delimiter");
    check_hierarchy_name(name);
    std::vector<CsvRecord> records = parse_csv(csv, delimiter);
    std::unique_ptr<Hierarchy> h = make_tree_hierarchy(std::string(name), records);
    Spi spi;
    refuse_existing(spi, name);
    store_tree(spi, name, records, h->height());
    spi.finish();
    PG_RETURN_INT32(h->height());
}

PRIVRISK_FUNCTION(privrisk_interval_hierarchy) {
    std::string_view name = text_arg_view(fcinfo, 0, "hierarchy name");
    check_hierarchy_name(name);
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2)) fail(ErrorKind::InvalidParameter, "lo and hi must not be NULL");
    Datum lo_numeric = PG_GETARG_DATUM(1), hi_numeric = PG_GETARG_DATUM(2);
    double lo = pg_call([&] { return DatumGetFloat8(DirectFunctionCall1(numeric_float8, lo_numeric)); });
    double hi = pg_call([&] { return DatumGetFloat8(DirectFunctionCall1(numeric_float8, hi_numeric)); });
    std::vector<long> widths = int4_array_arg_values(fcinfo, 3, "widths");
    std::unique_ptr<Hierarchy> h = make_interval_hierarchy(std::string(name), lo, hi, widths);
    Spi spi;
    refuse_existing(spi, name);
    spi.run("INSERT INTO privrisk.hierarchy(name, kind, height, lo, hi, widths) VALUES ($1, 'interval', $2, $3, $4, $5)",
            {text_arg(name), int4_arg(h->height()), SpiArg{NUMERICOID, lo_numeric, false},
             SpiArg{NUMERICOID, hi_numeric, false}, int8_array_arg(widths)},
            false);
    spi.finish();
    PG_RETURN_INT32(h->height());
}

PRIVRISK_FUNCTION(privrisk_prefix_hierarchy) {
    std::string_view name = text_arg_view(fcinfo, 0, "hierarchy name");
    check_hierarchy_name(name);
    int max_len = int4_arg_value(fcinfo, 1, "max_len");
    std::unique_ptr<Hierarchy> h = make_prefix_hierarchy(std::string(name), max_len);
    Spi spi;
    refuse_existing(spi, name);
    spi.run("INSERT INTO privrisk.hierarchy(name, kind, height, max_len) VALUES ($1, 'prefix', $2, $3)",
            {text_arg(name), int4_arg(h->height()), int4_arg(max_len)}, false);
    spi.finish();
    PG_RETURN_INT32(h->height());
}

PRIVRISK_FUNCTION(privrisk_date_hierarchy) {
    std::string_view name = text_arg_view(fcinfo, 0, "hierarchy name");
    check_hierarchy_name(name);
    std::unique_ptr<Hierarchy> h = make_date_hierarchy(std::string(name));
    Spi spi;
    refuse_existing(spi, name);
    spi.run("INSERT INTO privrisk.hierarchy(name, kind, height) VALUES ($1, 'date', $2)",
            {text_arg(name), int4_arg(h->height())}, false);
    spi.finish();
    PG_RETURN_INT32(h->height());
}

PRIVRISK_FUNCTION(privrisk_drop_hierarchy) {
    std::string_view name = text_arg_view(fcinfo, 0, "hierarchy name");
    Spi spi;
    if (spi.run("DELETE FROM privrisk.hierarchy WHERE name = $1", {text_arg(name)}, false) == 0)
        fail(ErrorKind::UndefinedObject, "hierarchy " + quote_value(name) + " does not exist");
    spi.finish();
    PG_RETURN_VOID();
}

// generalize(hierarchy, value, level): STRICT, so all three are present.
PRIVRISK_FUNCTION(privrisk_generalize) {
    const Hierarchy& h = hierarchy_for_call(fcinfo, PG_GETARG_TEXT_PP(0));
    std::string scratch;
    Value g = h.generalize(text_view(PG_GETARG_DATUM(1)), PG_GETARG_INT32(2), scratch);
    if (!g) PG_RETURN_NULL();
    return text_datum(*g);
}

PRIVRISK_FUNCTION(privrisk_hierarchy_height) {
    PG_RETURN_INT32(hierarchy_for_call(fcinfo, PG_GETARG_TEXT_PP(0)).height());
}

namespace {
Value nullable_text(FunctionCallInfo fcinfo, int i) {
    if (PG_ARGISNULL(i)) return std::nullopt;
    return text_view(PG_GETARG_DATUM(i));
}
}  // namespace

// generalizes(hierarchy, general, specific): NULL values are ⊥; a NULL hierarchy gives NULL.
PRIVRISK_FUNCTION(privrisk_generalizes) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    const Hierarchy& h = hierarchy_for_call(fcinfo, PG_GETARG_TEXT_PP(0));
    PG_RETURN_BOOL(h.generalizes(nullable_text(fcinfo, 1), nullable_text(fcinfo, 2)));
}

PRIVRISK_FUNCTION(privrisk_consistent) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    const Hierarchy& h = hierarchy_for_call(fcinfo, PG_GETARG_TEXT_PP(0));
    PG_RETURN_BOOL(h.consistent(nullable_text(fcinfo, 1), nullable_text(fcinfo, 2)));
}

// Trigger on the catalog tables: tells every backend to drop its cached hierarchies.
PRIVRISK_FUNCTION(privrisk_hierarchy_changed) {
    auto* trigger = reinterpret_cast<TriggerData*>(fcinfo->context);
    if (!CALLED_AS_TRIGGER(fcinfo)) fail(ErrorKind::InvalidParameter, "privrisk.hierarchy_changed() is a trigger");
    Relation rel = trigger->tg_relation;
    pg_call([&] { CacheInvalidateRelcache(rel); });
    return PointerGetDatum(nullptr);
}
