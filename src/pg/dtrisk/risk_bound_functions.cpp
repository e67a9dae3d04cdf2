// risk_bound_holds ([LSFB09] Proposition 1, A7): whether the risk
// against an estimated dictionary bounds the risk against the true one.
#include <string>
#include <vector>

#include "common/args.hpp"
#include "dtrisk/dictionary.hpp"
#include "common/error.hpp"
#include "common/json_text.hpp"
#include "dtrisk/risk_bound.hpp"
#include "common/source_columns.hpp"
#include "common/spi.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// Rows of `relid` as text: the id (when id_column is given) and the columns.
std::vector<DictionaryEntry> read_rows(Oid relid, const std::optional<std::string>& id_column,
                                       const std::vector<std::string>& columns, const char* role) {
    SourceRelation rel = source_relation(relid);
    std::vector<std::string> expressions;
    if (id_column) expressions.push_back(source_column(rel, *id_column, "id").quoted + "::pg_catalog.text");
    for (const std::string& column : columns)
        expressions.push_back(source_column(rel, column, role).quoted + "::pg_catalog.text");
    const std::string select = source_select(rel, expressions);
    Spi spi;
    uint64 n = spi.run(select.c_str(), {}, true);
    std::vector<DictionaryEntry> out;
    const int first = id_column ? 2 : 1;
    for (uint64 r = 0; r < n; ++r) {
        DictionaryEntry e;
        if (id_column) {
            if (spi.null(r, 1))
                fail(ErrorKind::InvalidParameter, std::string(role) + " " + quote_value(rel.name) + " has a NULL id");
            e.id = spi.string(r, 1);
        }
        for (std::size_t j = 0; j < columns.size(); ++j)
            e.values.push_back(spi.null(r, first + int(j)) ? std::nullopt
                                                           : std::optional<std::string>(spi.string(r, first + int(j))));
        out.push_back(std::move(e));
        if ((r & 4095) == 0) pg_call([] { CHECK_FOR_INTERRUPTS(); });
    }
    spi.finish();
    return out;
}

}  // namespace

// risk_bound_holds(source, estimated, true_dictionary, id_column, mapping) -> jsonb
PRIVRISK_FUNCTION(privrisk_risk_bound_holds) {
    for (int i = 0; i < 5; ++i)
        if (PG_ARGISNULL(i)) fail(ErrorKind::InvalidParameter, "risk_bound_holds takes no NULL argument");
    auto mapping = parse_mapping(PG_GETARG_DATUM(4));
    HierarchyPins pins;
    auto hierarchies = mapping_hierarchies(mapping, pins);
    const std::string id(text_view(PG_GETARG_DATUM(3)));
    std::vector<std::string> released, dictionary;
    for (const auto& a : mapping) {
        released.push_back(a.released);
        dictionary.push_back(a.dictionary);
    }
    auto estimated = read_rows(PG_GETARG_OID(1), id, dictionary, "estimated dictionary");
    auto truth = read_rows(PG_GETARG_OID(2), id, dictionary, "true dictionary");
    std::vector<Tuple> records;
    for (auto& e : read_rows(PG_GETARG_OID(0), std::nullopt, released, "source"))
        records.push_back(std::move(e.values));
    auto check_values = [&](const Tuple& t, const char* where) {
        for (std::size_t j = 0; j < t.size(); ++j)
            if (t[j] && hierarchies[j]) try {
                    hierarchies[j]->level_of(*t[j]);
                } catch (const Error& e) {
                    fail(e.kind(), std::string(where) + " column " +
                                       quote_value(where[0] == 's' ? released[j] : dictionary[j]) + ": " + e.what());
                }
    };
    for (const auto& e : estimated) check_values(e.values, "estimated dictionary");
    for (const auto& e : truth) check_values(e.values, "true dictionary");
    for (const auto& r : records) check_values(r, "source");
    RiskBoundCheck c = check_risk_bound(hierarchies, estimated, truth, records);
    auto b = [](bool v) { return std::string(v ? "true" : "false"); };
    std::string json = "{\"holds\": " + b(c.holds()) + ", \"unique_ids\": " + b(c.unique_ids) +
                       ", \"dominated\": " + b(c.dominated) + ", \"counterparts\": " + b(c.counterparts) +
                       ", \"exact_matching\": true, \"psi\": 0";
    if (!c.holds()) json += ", \"reason\": " + json_string(c.reason);
    return jsonb_datum(json + "}");
}
