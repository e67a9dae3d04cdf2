#include "dtrisk/dictionary.hpp"

#include "common/args.hpp"
#include "common/error.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "common/source_columns.hpp"
#include "common/spi.hpp"
#include "classes/table_tally.hpp"

namespace privrisk::pg {

std::vector<MappedAttribute> parse_mapping(Datum mapping) {
    std::vector<MappedAttribute> out;
    Spi spi;
    uint64 n = spi.run("SELECT pg_catalog.jsonb_typeof($1)", {SpiArg{JSONBOID, mapping, false}}, true);
    if (n != 1 || spi.null(0, 1) || spi.string(0, 1) != "array")
        fail(ErrorKind::InvalidParameter,
             "mapping must be a jsonb array of {\"released\": column, \"dictionary\": column, "
             "\"hierarchy\": name} objects, got " +
                 jsonb_value_text(mapping));
    n = spi.run(
        "SELECT pg_catalog.jsonb_typeof(e), e OPERATOR(pg_catalog.->>) 'released', "
        "COALESCE(e OPERATOR(pg_catalog.->>) 'dictionary', e OPERATOR(pg_catalog.->>) 'released'), "
        "e OPERATOR(pg_catalog.->>) 'hierarchy', "
        "(SELECT pg_catalog.string_agg(k, ', ') FROM pg_catalog.jsonb_object_keys("
        "CASE WHEN pg_catalog.jsonb_typeof(e) OPERATOR(pg_catalog.=) 'object' THEN e END) k "
        " WHERE k OPERATOR(pg_catalog.<>) ALL (ARRAY['released', 'dictionary', 'hierarchy'])), "
        "(pg_catalog.jsonb_typeof(e OPERATOR(pg_catalog.->) 'released') OPERATOR(pg_catalog.=) 'string' "
        "AND COALESCE(pg_catalog.jsonb_typeof(e OPERATOR(pg_catalog.->) 'dictionary'), 'null') "
        "OPERATOR(pg_catalog.=) ANY (ARRAY['string', 'null']) "
        "AND COALESCE(pg_catalog.jsonb_typeof(e OPERATOR(pg_catalog.->) 'hierarchy'), 'null') "
        "OPERATOR(pg_catalog.=) ANY (ARRAY['string', 'null']))::pg_catalog.text, "
        "pg_catalog.left(e::pg_catalog.text, 80) "
        "FROM pg_catalog.jsonb_array_elements($1) WITH ORDINALITY AS t(e, i) ORDER BY i",
        {SpiArg{JSONBOID, mapping, false}}, true);
    if (n == 0) fail(ErrorKind::InvalidParameter, "mapping must name at least one attribute");
    if (n > kMaxMappedAttributes)
        fail(ErrorKind::ProgramLimit, "mapping has " + std::to_string(n) + " attributes; the limit is " +
                                          std::to_string(kMaxMappedAttributes) + " (one aggregate argument each)");
    for (uint64 r = 0; r < n; ++r) {
        const std::string at = "mapping element " + std::to_string(r + 1);
        if (spi.string(r, 1) != "object")
            fail(ErrorKind::InvalidParameter, at + " must be an object, got " + spi.string(r, 7));
        if (!spi.null(r, 5)) fail(ErrorKind::InvalidParameter, at + " has unknown keys: " + spi.string(r, 5));
        if (spi.null(r, 2)) fail(ErrorKind::InvalidParameter, at + " needs \"released\": the released column");
        if (spi.string(r, 6) != "true")
            fail(ErrorKind::InvalidParameter, at +
                                                  " must give \"released\" and \"dictionary\" as column names and "
                                                  "\"hierarchy\" as a hierarchy name (strings), got " +
                                                  spi.string(r, 7));
        MappedAttribute a{spi.string(r, 2), spi.string(r, 3), std::nullopt};
        if (!spi.null(r, 4)) a.hierarchy = spi.string(r, 4);
        out.push_back(std::move(a));
    }
    spi.finish();
    if (out.empty()) fail(ErrorKind::InvalidParameter, "mapping must name at least one attribute");
    return out;
}

std::vector<const Hierarchy*> mapping_hierarchies(const std::vector<MappedAttribute>& mapping, HierarchyPins& pins) {
    std::vector<const Hierarchy*> out;
    for (const auto& a : mapping) out.push_back(a.hierarchy ? &pins.pin(*a.hierarchy) : nullptr);
    return out;
}

uint32_t mapped_code(MatchCounter& counter, const std::vector<MappedAttribute>& mapping, const char* side,
                     std::size_t j, std::optional<std::string_view> text, HierarchyPins& pins) {
    pins.check("while the tables were read; run again");
    try {
        return counter.code(j, text ? Value(*text) : Value());
    } catch (const Error& e) {
        const auto& a = mapping[j];
        fail(e.kind(),
             std::string(side) + " column " + quote_value(*side == 'd' ? a.dictionary : a.released) + ": " + e.what());
    }
}

int64_t tally_mapped(const SourceRelation& table, const std::vector<SourceColumn>& columns,
                     const std::function<uint32_t(std::size_t, std::optional<std::string_view>)>& code,
                     const std::function<void(const uint32_t*, int64_t)>& on_tuple,
                     const std::function<void(uint64_t)>& on_tuples) {
    const std::size_t width = columns.size();
    std::vector<std::vector<uint32_t>> code_of(width);  // the tally's code -> the caller's
    for (std::size_t j = 0; j < width; ++j) code_of[j].push_back(code(j, std::nullopt));
    std::vector<uint32_t> mapped(width);
    return tally_table(
        table, columns,
        [&](std::size_t j, uint32_t, std::string_view, std::string_view text) { code_of[j].push_back(code(j, text)); },
        [&](const uint32_t* codes, int64_t times) {
            for (std::size_t j = 0; j < width; ++j) mapped[j] = code_of[j][codes[j]];
            on_tuple(mapped.data(), times);
        },
        on_tuples);
}

int64_t load_released(const SourceRelation& table, const std::vector<SourceColumn>& columns, MatchCounter& counter,
                      const std::function<uint32_t(std::size_t, std::optional<std::string_view>)>& code) {
    return tally_mapped(
        table, columns, code, [&](const uint32_t* codes, int64_t times) { counter.add_released_codes(codes, times); },
        [&](uint64_t n) { counter.reserve_released(n); });
}

int64_t load_dictionary(Oid dictionary_id, const std::vector<MappedAttribute>& mapping, MatchCounter& counter,
                        HierarchyPins& pins) {
    SourceRelation dictionary = source_relation(dictionary_id);
    std::vector<SourceColumn> columns;
    for (const auto& a : mapping) columns.push_back(source_column(dictionary, a.dictionary, "dictionary"));
    const int64_t entries = tally_mapped(
        dictionary, columns,
        [&](std::size_t j, std::optional<std::string_view> t) {
            return mapped_code(counter, mapping, "dictionary", j, t, pins);
        },
        [&](const uint32_t* codes, int64_t times) { counter.add_entry_codes(codes, times); });
    if (entries == 0)
        pg_call([&] {
            ereport(NOTICE, (errmsg("dictionary \"%s\" is empty: no released row can be identified, every loss is 0",
                                    dictionary.name.c_str())));
        });
    return entries;
}

}  // namespace privrisk::pg
