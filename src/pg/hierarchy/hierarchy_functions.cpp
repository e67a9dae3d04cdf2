// SQL entry points for hierarchies. Writers check the caller's right first
// (docs/hierarchies-security.md), then write the catalog as its owner: nobody
// else holds write access to privrisk.hierarchy or privrisk.hierarchy_leaf.
#include <cmath>
#include <optional>

#include "common/catalog_owner.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "common/spi.hpp"

extern "C" {
#include "utils/numeric.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace {

std::string role_name(Oid role) {
    const char* name = pg_call([&] { return GetUserNameFromId(role, true); });
    return name ? std::string(name) : "(dropped role " + std::to_string(role) + ")";
}

bool may_manage(Oid caller, Oid owner) {
    return pg_call([&] { return has_privs_of_role(caller, owner); });
}

bool optional_flag(FunctionCallInfo fcinfo, int i, const char* what) {
    if (PG_NARGS() <= i) return false;
    if (PG_ARGISNULL(i)) fail(ErrorKind::InvalidParameter, std::string(what) + " must not be NULL");
    return PG_GETARG_BOOL(i);
}

// The owner of `name`, its row locked against a concurrent replace, or nullopt.
// Runs as the catalog owner; the caller's objects take no part (every name,
// operator and type below is qualified).
std::optional<Oid> locked_owner(Spi& spi, std::string_view name) {
    if (spi.run("SELECT owner::pg_catalog.oid::pg_catalog.int8 FROM privrisk.hierarchy "
                "WHERE name OPERATOR(pg_catalog.=) $1 FOR UPDATE",
                {text_arg(name)}, false) == 0)
        return std::nullopt;
    return static_cast<Oid>(spi.int8(0, 1));
}

void require_manager(Oid caller, Oid owner, std::string_view name, const char* action) {
    if (!may_manage(caller, owner))
        fail(ErrorKind::PermissionDenied, "must be owner of hierarchy " + quote_value(name) + " (owned by " +
                                              quote_value(role_name(owner)) + ") to " + action + " it");
}

// One write of a hierarchy: decides whether the name may be (re)defined by the
// caller, and gives the row to insert its owner. The checks come before the
// catalog is touched, and everything happens in the caller's transaction, so
// a failure leaves the catalog as it was.
class HierarchyWrite {
public:
    HierarchyWrite(std::string_view name, bool replace)
        : name_(name), caller_(GetUserId()), owned_(hierarchy_catalog_has_owners()) {
        if (!owned_) {  // not yet updated to 0.9: the old model, the caller's own grants
            if (spi_.run("SELECT 1 FROM privrisk.hierarchy WHERE name OPERATOR(pg_catalog.=) $1", {text_arg(name)},
                         false) > 0)
                already_exists();
            return;
        }
        as_owner_.emplace();
        std::optional<Oid> owner = locked_owner(spi_, name);
        if (!owner) {
            owner_ = caller_;  // a new name: its creator owns it
            return;
        }
        if (!replace) already_exists();
        require_manager(caller_, *owner, name, "replace");
        owner_ = *owner;  // a replace keeps the owner; the row gets a new version
        spi_.run("DELETE FROM privrisk.hierarchy WHERE name OPERATOR(pg_catalog.=) $1", {text_arg(name)}, false);
    }

    // Inserts the hierarchy row: `columns` and `values` name the kind's own
    // columns, $4 onwards; $1..$3 are name, owner and created_by.
    void insert(const std::string& columns, const std::string& values, std::vector<SpiArg> args) {
        std::string sql = owned_ ? "INSERT INTO privrisk.hierarchy(name, owner, created_by, " + columns +
                                       ") VALUES ($1, $2, $3::pg_catalog.name, " + values + ")"
                                 : "INSERT INTO privrisk.hierarchy(name, " + columns + ") VALUES ($1, " + values + ")";
        args.insert(args.begin(), {text_arg(name_), oid_arg(REGROLEOID, owner_), text_arg(role_name(caller_))});
        spi_.run(sql.c_str(), args, false);
    }

    Spi& spi() { return spi_; }
    void finish() { spi_.finish(); }

private:
    [[noreturn]] void already_exists() const {
        fail(ErrorKind::DuplicateObject,
             "hierarchy " + quote_value(name_) + " already exists; drop it first with privrisk.drop_hierarchy");
    }

    std::string name_;
    Oid caller_;
    bool owned_;
    Oid owner_ = InvalidOid;
    Spi spi_;
    std::optional<AsCatalogOwner> as_owner_;  // after spi_: destroyed first, the caller is back before SPI closes
};

// Stores a hierarchy that its parameters define (interval, prefix, date): one row.
void store_row(std::string_view name, bool replace, const std::string& columns, const std::string& values,
               std::vector<SpiArg> args) {
    HierarchyWrite w(name, replace);
    w.insert(columns, values, std::move(args));
    w.finish();
}

// Stores the leaves of a validated tree: one row per CSV record, the root kept once.
void store_tree(HierarchyWrite& w, std::string_view name, const std::vector<CsvRecord>& records, int height) {
    const std::string& root = records.front().fields.back();
    w.insert("kind, height, root", "'tree', $4, $5", {int4_arg(height), text_arg(root)});
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
    // ROWS FROM spelled out: the multi-argument unnest shorthand only exists unqualified.
    sql += "]::pg_catalog.text[] FROM ROWS FROM (pg_catalog.unnest($2::pg_catalog.int4[])";
    for (int l = 0; l < height; ++l) sql += ", pg_catalog.unnest($" + std::to_string(l + 3) + "::pg_catalog.text[])";
    sql += ") AS u(" + names + ")";
    std::vector<SpiArg> args{text_arg(name), int4_array_arg(lines)};
    for (int l = 0; l < height; ++l) args.push_back(text_array_arg(columns[l]));
    w.spi().run(sql.c_str(), args, false);
}

// Interval bounds are kept as doubles: beyond 2^53 consecutive integers are no
// longer distinct, and labels such as "[1e+18, 1e+18)" would be empty.
constexpr int64 kMaxExactInteger = int64{1} << 53;

double interval_bound(Datum numeric, const char* what) {
    double v = pg_call([&] { return DatumGetFloat8(DirectFunctionCall1(numeric_float8, numeric)); });
    bool too_large = pg_call([&] {
        Datum magnitude = DirectFunctionCall1(numeric_abs, numeric);
        Datum limit = NumericGetDatum(int64_to_numeric(kMaxExactInteger));
        return DatumGetBool(DirectFunctionCall2(numeric_gt, magnitude, limit));
    });
    if (!std::isfinite(v) || too_large) {
        char* text = pg_call([&] { return DatumGetCString(DirectFunctionCall1(numeric_out, numeric)); });
        fail(ErrorKind::InvalidParameter, std::string("interval hierarchy bound ") + what + " is " + quote_value(text) +
                                              "; bounds must be finite numbers between -2^53 and 2^53 (" +
                                              std::to_string(-kMaxExactInteger) + " .. " +
                                              std::to_string(kMaxExactInteger) + ")");
    }
    return v;
}

}  // namespace

PRIVRISK_FUNCTION(privrisk_load_hierarchy) {
    std::string_view name = text_arg_view(fcinfo, 0, "hierarchy name");
    std::string_view csv = text_arg_view(fcinfo, 1, "csv");
    std::string_view delimiter = text_arg_view(fcinfo, 2, "delimiter");
    bool replace = optional_flag(fcinfo, 3, "replace");
    check_hierarchy_name(name);
    std::vector<CsvRecord> records = parse_csv(csv, delimiter);
    std::unique_ptr<Hierarchy> h = make_tree_hierarchy(std::string(name), records);
    HierarchyWrite w(name, replace);
    store_tree(w, name, records, h->height());
    w.finish();
    PG_RETURN_INT32(h->height());
}

PRIVRISK_FUNCTION(privrisk_interval_hierarchy) {
    std::string_view name = text_arg_view(fcinfo, 0, "hierarchy name");
    check_hierarchy_name(name);
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2)) fail(ErrorKind::InvalidParameter, "lo and hi must not be NULL");
    Datum lo_numeric = PG_GETARG_DATUM(1), hi_numeric = PG_GETARG_DATUM(2);
    double lo = interval_bound(lo_numeric, "lo");
    double hi = interval_bound(hi_numeric, "hi");
    std::vector<long> widths = int4_array_arg_values(fcinfo, 3, "widths");
    bool replace = optional_flag(fcinfo, 4, "replace");
    std::unique_ptr<Hierarchy> h = make_interval_hierarchy(std::string(name), lo, hi, widths);
    store_row(name, replace, "kind, height, lo, hi, widths", "'interval', $4, $5, $6, $7",
              {int4_arg(h->height()), SpiArg{NUMERICOID, lo_numeric, false}, SpiArg{NUMERICOID, hi_numeric, false},
               int8_array_arg(widths)});
    PG_RETURN_INT32(h->height());
}

PRIVRISK_FUNCTION(privrisk_prefix_hierarchy) {
    std::string_view name = text_arg_view(fcinfo, 0, "hierarchy name");
    check_hierarchy_name(name);
    int max_len = int4_arg_value(fcinfo, 1, "max_len");
    bool replace = optional_flag(fcinfo, 2, "replace");
    std::unique_ptr<Hierarchy> h = make_prefix_hierarchy(std::string(name), max_len);
    store_row(name, replace, "kind, height, max_len", "'prefix', $4, $5", {int4_arg(h->height()), int4_arg(max_len)});
    PG_RETURN_INT32(h->height());
}

PRIVRISK_FUNCTION(privrisk_date_hierarchy) {
    std::string_view name = text_arg_view(fcinfo, 0, "hierarchy name");
    check_hierarchy_name(name);
    bool replace = optional_flag(fcinfo, 1, "replace");
    std::unique_ptr<Hierarchy> h = make_date_hierarchy(std::string(name));
    store_row(name, replace, "kind, height", "'date', $4", {int4_arg(h->height())});
    PG_RETURN_INT32(h->height());
}

PRIVRISK_FUNCTION(privrisk_drop_hierarchy) {
    std::string_view name = text_arg_view(fcinfo, 0, "hierarchy name");
    Oid caller = GetUserId();
    std::optional<AsCatalogOwner> as_owner;
    Spi spi;
    if (hierarchy_catalog_has_owners()) {
        as_owner.emplace();
        std::optional<Oid> owner = locked_owner(spi, name);
        if (!owner) fail(ErrorKind::UndefinedObject, "hierarchy " + quote_value(name) + " does not exist");
        require_manager(caller, *owner, name, "drop");
    }
    if (spi.run("DELETE FROM privrisk.hierarchy WHERE name OPERATOR(pg_catalog.=) $1", {text_arg(name)}, false) == 0)
        fail(ErrorKind::UndefinedObject, "hierarchy " + quote_value(name) + " does not exist");
    spi.finish();
    PG_RETURN_VOID();
}

// Like ALTER … OWNER: the owner (or a superuser) gives the hierarchy to a role
// it is a member of. The version stays: the definition did not change.
PRIVRISK_FUNCTION(privrisk_alter_hierarchy_owner) {
    std::string_view name = text_arg_view(fcinfo, 0, "hierarchy name");
    if (PG_ARGISNULL(1)) fail(ErrorKind::InvalidParameter, "new_owner must not be NULL");
    Oid new_owner = PG_GETARG_OID(1);
    Oid caller = GetUserId();
    bool role_exists = pg_call([&] { return SearchSysCacheExists1(AUTHOID, ObjectIdGetDatum(new_owner)); });
    if (!role_exists)
        fail(ErrorKind::UndefinedObject, "new_owner: role with OID " + std::to_string(new_owner) + " does not exist");
    AsCatalogOwner as_owner;
    Spi spi;
    std::optional<Oid> owner = locked_owner(spi, name);
    if (!owner) fail(ErrorKind::UndefinedObject, "hierarchy " + quote_value(name) + " does not exist");
    require_manager(caller, *owner, name, "change the owner of");
    if (!pg_call([&] { return is_member_of_role(caller, new_owner); }))
        fail(ErrorKind::PermissionDenied, "must be member of role " + quote_value(role_name(new_owner)) +
                                              " to give it hierarchy " + quote_value(name));
    spi.run("UPDATE privrisk.hierarchy SET owner = $2 WHERE name OPERATOR(pg_catalog.=) $1",
            {text_arg(name), oid_arg(REGROLEOID, new_owner)}, false);
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
