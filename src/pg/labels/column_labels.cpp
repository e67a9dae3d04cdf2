// The label provider and the SQL functions over column labels:
// column_labels(source) and the internal labelled_arguments(…).
#include "labels/column_labels.hpp"

#include <map>
#include <unordered_map>
#include <string_view>

#include "common/catalog_owner.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/spi.hpp"

extern "C" {
#include "access/genam.h"
#include "catalog/pg_seclabel.h"
#include "commands/event_trigger.h"
#include "utils/fmgroids.h"
#include "utils/inval.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace {

constexpr const char* kProvider = "privrisk";

void check_label(const ObjectAddress* object, const char* label) {
    if (object->classId != RelationRelationId || object->objectSubId == 0)
        fail(ErrorKind::InvalidParameter,
             "privrisk labels columns only: SECURITY LABEL FOR privrisk ON COLUMN table.column IS " +
                 std::string(kColumnLabelForms));
    if (object->objectSubId < 0)
        fail(ErrorKind::InvalidParameter, "privrisk labels a table's own columns, not system columns");
    if (label) ColumnLabel::parse(label);  // NULL removes the label
}

// Called by SECURITY LABEL after PostgreSQL checked that the caller owns the
// relation; an error here leaves pg_seclabel as it was. PostgreSQL sends no
// invalidation for a label: the relation's, sent with the change, tells every
// backend's column cache (table_columns) to read the labels again.
void label_hook(const ObjectAddress* object, const char* label) {
    guarded([&] {
        check_label(object, label);
        const Oid relation = object->objectId;
        pg_call([&] { CacheInvalidateRelcacheByRelid(relation); });
    });
}

// table_columns' cache: by relation, dropped on a relcache invalidation of it
// (or of everything). `invalidations` counts them, so that a read that an
// invalidation overtook is not kept.
std::unordered_map<Oid, std::vector<TableColumn>> cached_columns;
uint64_t invalidations = 0;

void forget_columns(Datum, Oid relid) {
    ++invalidations;
    if (relid == InvalidOid) cached_columns.clear();
    else cached_columns.erase(relid);
}

void require_some_column_readable(Oid relation) {
    bool readable = pg_call([&] {
        // as has_any_column_privilege: the table's privilege, else one column's
        return pg_class_aclcheck(relation, GetUserId(), ACL_SELECT) == ACLCHECK_OK ||
               pg_attribute_aclcheck_all(relation, GetUserId(), ACL_SELECT, ACLMASK_ANY) == ACLCHECK_OK;
    });
    if (!readable) {
        const char* name = pg_call([&] { return get_rel_name(relation); });
        fail(ErrorKind::PermissionDenied,  // as PostgreSQL words it
             std::string("permission denied for table ") + (name ? name : std::to_string(relation).c_str()));
    }
}

// This provider's label of each column of `relation` by attribute number, in one
// index scan of pg_seclabel (GetSecurityLabel would scan once per column).
std::map<AttrNumber, std::string> column_label_texts(Oid relation) {
    std::map<AttrNumber, std::string> labels;
    pg_call([&] {
        ScanKeyData keys[2];
        ScanKeyInit(&keys[0], Anum_pg_seclabel_objoid, BTEqualStrategyNumber, F_OIDEQ, ObjectIdGetDatum(relation));
        ScanKeyInit(&keys[1], Anum_pg_seclabel_classoid, BTEqualStrategyNumber, F_OIDEQ,
                    ObjectIdGetDatum(RelationRelationId));
        Relation catalog = table_open(SecLabelRelationId, AccessShareLock);
        SysScanDesc scan = systable_beginscan(catalog, SecLabelObjectIndexId, true, nullptr, 2, keys);
        for (HeapTuple tuple; HeapTupleIsValid(tuple = systable_getnext(scan));) {
            auto* row = reinterpret_cast<FormData_pg_seclabel*>(GETSTRUCT(tuple));  // fixed fields only
            bool null;
            Datum provider = heap_getattr(tuple, Anum_pg_seclabel_provider, RelationGetDescr(catalog), &null);
            if (row->objsubid <= 0 || null || std::string_view(text_view(provider)) != kProvider) continue;
            Datum label = heap_getattr(tuple, Anum_pg_seclabel_label, RelationGetDescr(catalog), &null);
            if (!null) labels.emplace(static_cast<AttrNumber>(row->objsubid), std::string(text_view(label)));
        }
        systable_endscan(scan);
        table_close(catalog, AccessShareLock);
    });
    return labels;
}

}  // namespace

namespace privrisk::pg {

void register_label_provider() {
    register_label_provider(kProvider, label_hook);
    CacheRegisterRelcacheCallback(forget_columns, (Datum)0);
}

std::vector<LabelledColumn> labelled_columns(Oid relation) {
    require_some_column_readable(relation);
    return labels_of(relation);
}

}  // namespace privrisk::pg

namespace {

// The source of the policy whose release view `relation` is, if it is one. Read
// as the catalog's owner: a reader of the view may not read the policy's rows.
std::optional<Oid> release_view_source(Oid relation) {
    AsCatalogOwner owner;
    Spi spi;
    std::optional<Oid> source;
    if (spi.run("SELECT p.source::pg_catalog.oid::pg_catalog.int8 FROM "
                "privrisk.release_view v "
                "JOIN privrisk.policy p ON p.name OPERATOR(pg_catalog.=) v.policy "
                "WHERE v.view OPERATOR(pg_catalog.=) $1",
                {oid_arg(REGCLASSOID, relation)}, true) > 0)
        source = static_cast<Oid>(spi.int8(0, 1));
    spi.finish();
    return source;
}

}  // namespace

namespace {

std::vector<TableColumn> read_table_columns(Oid relation) {
    std::map<AttrNumber, std::string> texts = column_label_texts(relation);
    int natts = pg_call([&] {
        HeapTuple tuple = SearchSysCache1(RELOID, ObjectIdGetDatum(relation));
        if (!HeapTupleIsValid(tuple)) elog(ERROR, "cache lookup failed for relation %u", relation);
        int n = reinterpret_cast<Form_pg_class>(GETSTRUCT(tuple))->relnatts;
        ReleaseSysCache(tuple);
        return n;
    });
    std::vector<TableColumn> columns;
    for (AttrNumber a = 1; a <= natts; ++a) {
        const char* name = pg_call([&] {
            HeapTuple t = SearchSysCache2(ATTNUM, ObjectIdGetDatum(relation), Int16GetDatum(a));
            if (!HeapTupleIsValid(t)) return static_cast<const char*>(nullptr);
            Form_pg_attribute att = reinterpret_cast<Form_pg_attribute>(GETSTRUCT(t));
            const char* n = att->attisdropped ? nullptr : pstrdup(NameStr(att->attname));
            ReleaseSysCache(t);
            return n;
        });
        if (!name) continue;  // dropped: its label went with it
        TableColumn column{name, std::nullopt, a};
        auto text = texts.find(a);
        if (text != texts.end()) try {
                column.label = ColumnLabel::parse(text->second);
            } catch (const Error& e) {  // written behind the provider's back (pg_seclabel edited by hand)
                fail(e.kind(), "column " + quote_value(name) + ": " + e.what());
            }
        columns.push_back(std::move(column));
    }
    return columns;
}

}  // namespace

namespace privrisk::pg {

std::vector<TableColumn> table_columns(Oid relation) {
    pg_call([] { AcceptInvalidationMessages(); });  // a label committed before now is read
    auto kept = cached_columns.find(relation);
    if (kept != cached_columns.end()) return kept->second;
    const uint64_t before = invalidations;
    std::vector<TableColumn> columns = read_table_columns(relation);
    if (invalidations == before) {
        if (cached_columns.size() >= 1024) cached_columns.clear();  // many tables: no growth without end
        cached_columns.emplace(relation, columns);
    }
    return columns;
}

std::vector<LabelledColumn> labels_of(Oid relation) {
    std::vector<LabelledColumn> out;
    for (TableColumn& c : table_columns(relation))
        if (c.label) out.push_back(LabelledColumn{std::move(c.name), std::move(*c.label)});
    return out;
}

RoleArguments labelled_role_arguments(Oid source, const OptionalTexts& quasi_identifiers,
                                      const OptionalTexts& hierarchies, const std::optional<std::string>& sensitive,
                                      const std::string& function) {
    if (quasi_identifiers && hierarchies && sensitive)  // nothing to fill in: no catalog read
        return resolve_role_arguments({}, quasi_identifiers, hierarchies, sensitive, function, "");
    std::vector<LabelledColumn> labels = labelled_columns(source);
    if (labels.empty()) {
        // A release view without labels of its own reads its policy's source's
        // (same column names); its values are released already, so the labels'
        // hierarchies do not apply.
        if (std::optional<Oid> policy_source = release_view_source(source)) {
            labels = labels_of(*policy_source);
            for (LabelledColumn& c : labels) c.label.hierarchy.clear();
        }
    }
    const char* name = pg_call([&] { return get_rel_name(source); });
    return resolve_role_arguments(labels, quasi_identifiers, hierarchies, sensitive, function,
                                  quote_value(name ? name : std::to_string(source)));
}

}  // namespace privrisk::pg

// load_label_provider() RETURNS event_trigger, fired at ddl_command_start of
// every SECURITY LABEL (src/sql/labels/catalog_rules.sql). Its work is done
// before its body runs: calling it loads this library, whose _PG_init registers
// the provider, and PostgreSQL looks the provider up only after the trigger. So
// SECURITY LABEL FOR privrisk works in any session of a database with the
// extension, whatever ran before: a restore of a schema or a table (pg_dump -n,
// -t: no CREATE EXTENSION in the dump), a parallel pg_restore's workers.
PRIVRISK_FUNCTION(privrisk_load_label_provider) {
    if (!CALLED_AS_EVENT_TRIGGER(fcinfo))
        fail(ErrorKind::InvalidParameter, "privrisk.load_label_provider() is an event trigger function");
    return Datum(0);
}

// column_labels(source regclass) RETURNS TABLE(column_name name, role text,
// hierarchy text)
PRIVRISK_FUNCTION(privrisk_column_labels) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "column_labels: source must not be NULL");
    std::vector<LabelledColumn> labels = labelled_columns(PG_GETARG_OID(0));
    pg_call([&] { InitMaterializedSRF(fcinfo, 0); });
    auto* rsi = reinterpret_cast<ReturnSetInfo*>(fcinfo->resultinfo);
    for (const LabelledColumn& c : labels) {
        const char* name = c.name.c_str();
        const char* role = role_name(c.label.role);
        const char* hierarchy = c.label.hierarchy.c_str();
        bool no_hierarchy = c.label.hierarchy.empty();
        pg_call([&] {
            Datum values[3] = {DirectFunctionCall1(namein, CStringGetDatum(name)), CStringGetTextDatum(role),
                               no_hierarchy ? Datum(0) : CStringGetTextDatum(hierarchy)};
            bool nulls[3] = {false, false, no_hierarchy};
            tuplestore_putvalues(rsi->setResult, rsi->setDesc, values, nulls);
        });
    }
    return Datum(0);
}

namespace {

OptionalTexts optional_texts(FunctionCallInfo fcinfo, int i, const char* what) {
    if (PG_ARGISNULL(i)) return std::nullopt;
    return text_array_arg_values(fcinfo, i, what, true);
}

Datum text_array_datum(const std::vector<std::optional<std::string>>& items) {
    std::vector<std::optional<std::string_view>> views(items.begin(), items.end());
    return text_array_arg(views).value;
}

}  // namespace

// labelled_arguments(source, quasi_identifiers, hierarchies, sensitive,
// function,
//   OUT quasi_identifiers text[], OUT hierarchies text[], OUT sensitive text)
PRIVRISK_FUNCTION(privrisk_labelled_arguments) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "source must not be NULL");
    std::string function = PG_ARGISNULL(4) ? "privrisk" : std::string(text_view(PG_GETARG_DATUM(4)));
    std::optional<std::string> sensitive;
    if (!PG_ARGISNULL(3)) sensitive = std::string(text_view(PG_GETARG_DATUM(3)));
    RoleArguments r = labelled_role_arguments(PG_GETARG_OID(0), optional_texts(fcinfo, 1, "quasi_identifiers"),
                                              optional_texts(fcinfo, 2, "hierarchies"), sensitive, function);
    std::vector<std::optional<std::string>> qi(r.quasi_identifiers.begin(), r.quasi_identifiers.end());
    Datum values[3] = {text_array_datum(qi), r.hierarchies ? text_array_datum(*r.hierarchies) : Datum(0),
                       r.sensitive ? text_datum(*r.sensitive) : Datum(0)};
    bool nulls[3] = {false, !r.hierarchies, !r.sensitive};
    return pg_call([&] {
        TupleDesc desc;
        if (get_call_result_type(fcinfo, nullptr, &desc) != TYPEFUNC_COMPOSITE)
            ereport(ERROR, (errmsg("labelled_arguments must be called as returning a record")));
        desc = BlessTupleDesc(desc);
        return HeapTupleGetDatum(heap_form_tuple(desc, values, nulls));
    });
}
