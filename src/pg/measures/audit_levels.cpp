#include "measures/audit_levels.hpp"

#include <string>
#include <unordered_map>

#include "classes/class_memory.hpp"
#include "classes/coded_classes.hpp"
#include "common/guard.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "hierarchy/hierarchy_coverage.hpp"

extern "C" {
#include "miscadmin.h"
}

namespace privrisk::pg {

namespace {

void check_interrupts(void*) {
    pg_call([] { CHECK_FOR_INTERRUPTS(); });
}

// Each code of a column's values to its class value at `level` of `h`, as gen()
// gives it: 0 for ⊥ (NULL, and every value at the top level), then the
// generalized texts numbered as met.
std::vector<uint32_t> level_codes(const std::vector<std::optional<std::string>>& values, const Hierarchy& h,
                                  int level) {
    std::vector<uint32_t> codes(values.size(), 0);
    std::unordered_map<std::string, uint32_t> ids;
    std::string scratch;
    for (std::size_t code = 0; code < values.size(); ++code) {
        if (!values[code]) continue;
        Value g = audited_level(h, *values[code], level, scratch);
        if (g) codes[code] = ids.try_emplace(std::string(*g), static_cast<uint32_t>(ids.size() + 1)).first->second;
    }
    return codes;
}

}  // namespace

Value audited_level(const Hierarchy& h, std::string_view value, int level, std::string& scratch) {
    try {
        return h.generalize(value, level, scratch);  // refuses what gen() refuses
    } catch (const Error& e) {
        if (e.kind() != ErrorKind::InvalidParameter) throw;
        throw UncoveredValueError(e);  // explaining_uncovered counts them all
    }
}

AuditedLevels audited_levels(const SourceRelation& source, const std::vector<ClassColumn>& columns,
                             const std::optional<SourceColumn>& sensitive) {
    const std::size_t width = columns.size();
    HierarchyPins pins;
    std::vector<const Hierarchy*> hierarchies;
    CodedClassesRequest request;
    for (const ClassColumn& c : columns) {
        request.columns.push_back(c.column);
        hierarchies.push_back(c.hierarchy ? &pins.pin(*c.hierarchy) : nullptr);
        request.heights.push_back(0);  // one level's codes per value, not a lattice's
    }
    if (sensitive) request.columns.push_back(*sensitive);
    request.width = width;
    request.memory = audit_memory_bound("audit");
    request.what = "audit";
    request.hint = "raise it (audit() falls back to GROUP BY meanwhile)";
    request.activity = "audit";  // as the serial read without hierarchies: rows read in privrisk.progress
    CodedClasses read = read_coded_classes(source, request);
    pins.check("while the source was read; run the audit again");

    std::vector<std::vector<uint32_t>> maps(width);
    std::vector<const uint32_t*> map_of(width);
    for (std::size_t j = 0; j < width; ++j) {
        const std::vector<std::optional<std::string>>& values = read.values[j];
        if (hierarchies[j]) {
            maps[j] = level_codes(values, *hierarchies[j], columns[j].level);
        } else {  // as read: NULL is a code of its own
            maps[j].resize(values.size());
            for (uint32_t code = 0; code < values.size(); ++code) maps[j][code] = code;
        }
        map_of[j] = maps[j].data();
    }
    NodeClasses rolled =
        roll_up(read.classes, map_of, static_cast<uint32_t>(read.sensitive.text.size()), {}, check_interrupts, nullptr);
    read.classes = NodeClasses();  // its memory back before the table is built
    return AuditedLevels{contingency_table(rolled, read.sensitive.text), read.workers};
}

}  // namespace privrisk::pg
