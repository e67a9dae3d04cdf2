// The values of a column that a hierarchy does not cover (not a node of it, or a node
// above the leaves): hierarchy_coverage()'s rows, and the one error that audit(),
// search() and add_rule() raise when a column has any (docs/hierarchy.md).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "common/error.hpp"
#include "common/source_columns.hpp"

namespace privrisk::pg {

struct UncoveredValue {
    std::string value;
    int64_t rows;
    std::string reason;
};

// Read as the caller, most frequent first; empty when the hierarchy covers the column.
std::vector<UncoveredValue> uncovered_values(const SourceRelation& source, const SourceColumn& column,
                                             const std::string& hierarchy);

// Throws one error that counts the uncovered values and their rows, shows the first
// few and points to hierarchy_coverage in its HINT; returns when there are none.
void require_covered(const SourceRelation& source, const SourceColumn& column, const std::string& hierarchy);

// A value that a hierarchy refused in C++ (audit()'s class reader generalizes each
// distinct value there): the one C++ error explaining_uncovered counts coverage for.
class UncoveredValueError : public Error {
public:
    explicit UncoveredValueError(const Error& refused) : Error(refused) {}
};

// Runs fn() in a subtransaction. If it fails with invalid_parameter_value (a value
// that generalize() refused), each (column, hierarchy) is checked first, so the
// error counts every uncovered value; otherwise the original error goes on.
void explaining_uncovered(const SourceRelation& source,
                          const std::vector<std::pair<SourceColumn, std::string>>& columns,
                          const std::function<void()>& fn);

}  // namespace privrisk::pg
