// privrisk.classes_sql (docs/scale-out.md): the query privrisk.classes() runs,
// per shard when the source has foreign partitions.
#include "classes/class_query.hpp"
#include "classes/read_choice.hpp"
#include "common/args.hpp"
#include "common/error.hpp"

using namespace privrisk;
using namespace privrisk::pg;

// classes_sql(source, quasi_identifiers, hierarchies, levels, sensitive) -> text:
// SELECT class text[], hist privrisk.hist, one row per class.
PRIVRISK_FUNCTION(privrisk_classes_sql) {
    if (PG_ARGISNULL(0)) fail(ErrorKind::InvalidParameter, "source must not be NULL");
    SourceRelation source = source_relation(PG_GETARG_OID(0));
    auto qi = text_array_arg_values(fcinfo, 1, "quasi_identifiers", false);
    auto hierarchies = text_array_arg_values(fcinfo, 2, "hierarchies", true);
    std::vector<long> levels;
    if (!PG_ARGISNULL(3)) levels = int4_array_arg_values(fcinfo, 3, "levels");
    std::vector<ClassColumn> columns = class_columns(source, qi, hierarchies, levels);
    std::optional<SourceColumn> sensitive;
    if (!PG_ARGISNULL(4)) sensitive = source_column(source, std::string(text_view(PG_GETARG_DATUM(4))), "sensitive");
    std::string keys, texts;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        keys += (i ? ", k" : "k") + std::to_string(i);
        texts += (i ? ", k" : "k") + std::to_string(i) + "::pg_catalog.text";
    }
    return text_datum("SELECT ARRAY[" + texts + "] AS class, h AS hist FROM (" +
                      class_query(source,
                                  choose_read(source.relid, columns, sensitive, {true, false, false, false}).shards,
                                  columns, sensitive) +
                      ") AS q(" + keys + ", h)");
}
