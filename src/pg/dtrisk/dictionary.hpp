// An attacker's dictionary as identification reads it (docs/dtrisk.md): the mapping
// from released attributes to dictionary columns and hierarchies (jsonb), and
// the dictionary's rows loaded into a MatchCounter. Shared by match_counts and
// the optimal-disclosure functions.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "hierarchy/hierarchy.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "dtrisk/identification.hpp"
#include "common/args.hpp"
#include "common/postgres.hpp"
#include "common/source_columns.hpp"

namespace privrisk::pg {

struct MappedAttribute {
    std::string released, dictionary;
    std::optional<std::string> hierarchy;
};

// tuple_tally reads the mapped columns as the arguments of one aggregate call,
// and PostgreSQL takes at most 99 there.
constexpr std::size_t kMaxMappedAttributes = kMaxAggregateArguments;

// [{"released": column, "dictionary": column (default: the same), "hierarchy": name}, …]
std::vector<MappedAttribute> parse_mapping(Datum mapping);
std::vector<const Hierarchy*> mapping_hierarchies(const std::vector<MappedAttribute>& mapping, HierarchyPins& pins);

// Codes a value for attribute j; an error names the side, the column and the value.
uint32_t mapped_code(MatchCounter& counter, const std::vector<MappedAttribute>& mapping, const char* side,
                     std::size_t j, std::optional<std::string_view> text, HierarchyPins& pins);

// Reads `columns` of `table` as distinct tuples (table_tally), each value coded
// once by `code` (nullopt: NULL); on_tuples(n) announces the n distinct tuples, then
// on_tuple gets each one's codes and how many rows hold them.
int64_t tally_mapped(const SourceRelation& table, const std::vector<SourceColumn>& columns,
                     const std::function<uint32_t(std::size_t, std::optional<std::string_view>)>& code,
                     const std::function<void(const uint32_t*, int64_t)>& on_tuple,
                     const std::function<void(uint64_t)>& on_tuples = nullptr);

// Reads `columns` of `table` into `counter` as released tuples, each distinct value coded by `code`.
int64_t load_released(const SourceRelation& table, const std::vector<SourceColumn>& columns, MatchCounter& counter,
                      const std::function<uint32_t(std::size_t, std::optional<std::string_view>)>& code);

// Reads every dictionary row into `counter`; a NOTICE when there is none.
int64_t load_dictionary(Oid dictionary, const std::vector<MappedAttribute>& mapping, MatchCounter& counter,
                        HierarchyPins& pins);

}  // namespace privrisk::pg
