// An attacker's dictionary as identification reads it (SPEC §4.5): the mapping
// from released attributes to dictionary columns and hierarchies (jsonb), and
// the dictionary's rows loaded into a MatchCounter. Shared by match_counts and
// the optimal-disclosure functions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "hierarchy.hpp"
#include "identification.hpp"
#include "postgres.hpp"

namespace privrisk::pg {

struct MappedAttribute {
    std::string released, dictionary;
    std::optional<std::string> hierarchy;
};

// [{"released": column, "dictionary": column (default: the same), "hierarchy": name}, …]
std::vector<MappedAttribute> parse_mapping(Datum mapping);
std::vector<const Hierarchy*> mapping_hierarchies(const std::vector<MappedAttribute>& mapping);

// Codes a value for attribute j; an error names the side, the column and the value.
uint32_t mapped_code(MatchCounter& counter, const std::vector<MappedAttribute>& mapping, const char* side, std::size_t j,
                     std::optional<std::string_view> text, uint64_t generation);

// Reads every dictionary row into `counter`; a NOTICE when there is none.
int64_t load_dictionary(Oid dictionary, const std::vector<MappedAttribute>& mapping, MatchCounter& counter,
                        uint64_t generation);

}  // namespace privrisk::pg
