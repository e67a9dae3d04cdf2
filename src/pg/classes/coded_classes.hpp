// The level-0 classes of a source, each distinct value of a quasi-identifier
// coded once (docs/architecture.md, "the class reader"): the one place that
// decides how those rows are read. Shards send their level-0 classes in one class
// tally each (values by text), coded here; a table the caller may read whole (no row-level security) is read
// from its heap by parallel workers when the planner would give it some, else
// by one process; anything else through SQL with the caller's rights. Callers
// roll the classes up (search's lattice, audit's levels) by the codes' texts,
// so a hierarchy is applied to each distinct value once, never once per row.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "common/memory_bound.hpp"
#include "common/source_columns.hpp"
#include "common/text_ids.hpp"
#include "search/node_classes.hpp"

namespace privrisk::pg {

struct CodedClassesRequest {
    std::vector<SourceColumn> columns;  // the quasi-identifiers, then the sensitive column if any
    std::size_t width = 0;              // how many of them are quasi-identifiers
    std::vector<int> heights;           // per quasi-identifier: its hierarchy's height (0: none), for the estimate
    MemoryBound memory;                 // the classes and the coded values, estimated while read
    std::string what;                   // names the read in the memory error ("search: …")
    std::string hint;                   // what to do past the bound
    bool shards = true;                 // a source with foreign partitions is read shard by shard
    const char* activity = nullptr;     // if set, other sessions follow the read in privrisk.progress under this name
};

struct CodedClasses {
    std::vector<std::vector<std::optional<std::string>>>
        values;                   // per quasi-identifier, per code: its text (nullopt: NULL)
    TextIds sensitive;            // the sensitive values by id (NULL included)
    NodeClasses classes;          // level 0, keyed by the codes
    std::size_t coded_bytes = 0;  // what the coded values hold (estimated on the high side) while they are kept
    int workers = 0;              // parallel workers that read with the leader
};

// The quasi-identifiers' values are coded by their binary form where equal bytes
// mean the same displayed value, and carry the text value_text() gives (what gen()
// generalizes); the sensitive value's text is value_text()'s too. Past the bound,
// an ERROR 54000 (ErrorKind::ProgramLimit) that names `what` and `hint`. Runs its
// own Spi scope.
CodedClasses read_coded_classes(const SourceRelation& source, const CodedClassesRequest& request);

}  // namespace privrisk::pg
