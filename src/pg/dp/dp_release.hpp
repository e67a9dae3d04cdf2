// The parts of privrisk.dp_release (docs/dp.md) shared by its files: the
// request, the released values, the output, and the steps every mechanism
// takes. dp_release.cpp is the SQL entry point; dp_safepub.cpp and dp_fouad.cpp
// are the mechanisms; dp_release_steps.cpp counts the source and builds the output.
#pragma once

#include <algorithm>
#include <array>
#include <functional>
#include <cmath>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "classes/read_choice.hpp"
#include "labels/column_labels.hpp"
#include "common/args.hpp"
#include "classes/class_query.hpp"
#include "dp/dp_budget.hpp"
#include "dp/dp_parameters.hpp"
#include "dp/dp_random.hpp"
#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "common/text_ids.hpp"
#include "dp/fouad_mechanism.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "common/json_text.hpp"
#include "dp/sample_classes.hpp"
#include "dtrisk/sensitivity.hpp"
#include "dp/coded_scan.hpp"
#include "common/source_columns.hpp"
#include "common/spi.hpp"

namespace privrisk::pg::dp {

// A quasi-identifier of the release: its distinct source values as codes, each
// checked against the hierarchy when first seen (every row's values, sampled or
// not, so an error does not depend on the sample).
struct DpColumn {
    std::string name;
    std::optional<std::string> hierarchy_name;
    const Hierarchy* hierarchy = nullptr;
    int level = 0;   // safepub: the released level
    TextIds values;  // the source values' codes: one per distinct text (two NaNs are one value)

    int height() const { return hierarchy ? hierarchy->height() : 0; }

    void check_value(std::string_view value, int max_level) const {
        if (!hierarchy) return;
        int at;
        try {
            at = hierarchy->level_of(value);
        } catch (const Error& e) {
            fail(e.kind(), "quasi-identifier " + quote_value(name) + ": " + e.what());
        }
        if (at > max_level)
            fail(ErrorKind::InvalidParameter, "quasi-identifier " + quote_value(name) + ": value " +
                                                  quote_value(value) + " is at level " + std::to_string(at) +
                                                  " of hierarchy " + quote_value(hierarchy->name()) + ", above level " +
                                                  std::to_string(max_level));
    }
};

// What the calls after the first return: plain data in the SRF's memory.
struct DpOutput {
    int width;
    bool per_class;  // one row per class with its count, else one row per released row
    uint32 classes;
    uint32 next;    // the class being returned
    int64 left;     // rows of it still to return
    Datum* values;  // classes × width text datums
    bool* nulls;
    int64* rows;
};

enum class Output { Rows, Classes };
enum class Mechanism { SafePub, Fouad };
enum class Sensitivity { Uniform, Harmonic };
constexpr std::size_t kMaxReleaseColumns = 64;

struct Request {
    Oid relid;
    std::vector<DpColumn> columns;
    double epsilon, delta;
    Mechanism mechanism;
    std::optional<int64_t> seed;
    Output output;
    FouadParameters fouad;
    Sensitivity sensitivity = Sensitivity::Uniform;
    std::vector<double> leaf_weights;
    HierarchyPins pins;  // of the columns' hierarchies, checked as the source is read
};

// The steps every mechanism takes (dp_release_steps.cpp).
std::string parameters_json(const Request& r, const std::string& mechanism_fields);
DpRandom run_random(const std::optional<int64_t>& seed);
// Checks the source and the caller's rights, then spends: nothing is read
// before the budget allows it.
std::vector<SourceColumn> open_source(Request& req, const SourceRelation& source, const Spend& spend);
// One pass over the source (or its shards' classes): on_rows(codes, rows), each
// value coded per column by its text; on_new(column, code) once per distinct
// value. `shard_levels`: the levels the shards generalize to. Returns the rows.
int64_t count_source(Request& req, const SourceRelation& source, const std::vector<SourceColumn>& columns,
                     const ReadChoice& read, const std::vector<int>& shard_levels,
                     const std::function<void(const uint32_t*, int64_t)>& on_rows,
                     const std::function<void(std::size_t, uint32_t)>& on_new);
// Classes compared by their values' texts (NULL first).
std::function<bool(uint32_t, uint32_t)> by_values(
    const SampleClasses& classes, const std::vector<const std::vector<std::optional<std::string>>*>& texts);
// How many of `rows` rows with these released values the run samples.
int64_t sampled_rows(const DpRandom& random, const std::vector<std::optional<std::string_view>>& values, int64_t rows,
                     uint64_t threshold);
// The kept classes as PostgreSQL data in the multi-call context.
DpOutput* output_classes(const SampleClasses& classes, const SampleClasses::Released& released,
                         const std::vector<const std::vector<std::optional<std::string>>*>& texts,
                         MemoryContext memory);
void notice_nothing_released(const Request& req, const std::string& why);

// The mechanisms (dp_safepub.cpp, dp_fouad.cpp).
DpOutput* release_safepub(Request& req, MemoryContext memory);
DpOutput* release_fouad(Request& req, MemoryContext memory);

}  // namespace privrisk::pg::dp
