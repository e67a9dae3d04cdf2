// Index paths under a release scan (docs/release.md, "Index paths"): the
// source is read through one of its btree indexes when a qual on the release
// selects, on the raw column, exactly the rows it selects on the released one.
// Every qual still runs above the scan on the released row; the index only
// narrows which source rows are read. Planned in scan_index_paths.cpp,
// executed in scan_index_exec.cpp.
#pragma once

#include <string>
#include <vector>

#include "common/postgres.hpp"
#include "hierarchy/hierarchy.hpp"
#include "release/policy_catalog.hpp"
#include "release/release_shape.hpp"

namespace privrisk::pg {

struct ReleaseScanState;

// How a release column shows its source column, as far as an index may know.
enum class ColumnAccess {
    AsIs,   // every row as it is, with its own type: any btree operator of the column
    Label,  // every row at one level of a tree hierarchy, as text: equality on labels
    None    // hidden, conditional, pseudonymized, or another kind of hierarchy
};

struct IndexableColumn {
    std::string name;  // in the release
    AttrNumber attno;  // in the source
    ColumnAccess access;
    int level;              // Label
    std::string hierarchy;  // Label
};

// The access of `col` under `policy` (with its default rules): rules whose
// condition is a constant apply to every row or to none; any other makes it None.
IndexableColumn indexable_column(const Policy& policy, const ReleasedColumn& col);

// The leaves under the label `labels` (text, or text[] when `array`) at `level` of a tree
// hierarchy, as raw values of `type` in an array (in the current memory context), their
// number in *n; false when they cannot be listed (not a tree, too many).
bool label_leaves(const Hierarchy& h, int level, Datum labels, bool array, Oid type, Datum* out, int* n);

// privrisk.release_index_scans (default on): off reads every release in full.
void define_release_index_setting();
bool release_index_scans();

// Adds to `rel` the paths that read the source through an index: for the
// release's own quals, and parameterized by other FROM items for nested-loop
// joins; may lower rel->rows to what the source's statistics say of the quals.
// `per_row` is the CPU cost of the rules on a row. A path's custom_private is
// list_make2(access, arguments): the chosen index and its quals (read by
// begin_index_access), and the quals' other sides, which plan_release appends
// to custom_exprs (where nested-loop parameters replace other items' columns).
void add_release_index_paths(PlannerInfo* root, RelOptInfo* rel, Oid source,
                             const std::vector<IndexableColumn>& columns, double per_row,
                             const CustomPathMethods* methods);

// Executor side (scan_index_exec.cpp). begin: opens the index when the plan
// chose one (`access`, NIL when not) and every column it relies on still shows
// its source the same way under the policy `now` (else the scan reads the whole
// source; the quals above keep it exact). The plan's custom_private is
// list_make3(pins, access, Integer(position of the first argument in custom_exprs)).
void begin_index_access(ReleaseScanState* s, List* access, const std::vector<IndexableColumn>& now);
// The next source row through the index into source_slot; false at its end.
bool next_index_row(ReleaseScanState* s);
void rescan_index_access(ReleaseScanState* s);
void end_index_access(ReleaseScanState* s);
void explain_index_access(ReleaseScanState* s, List* ancestors, ExplainState* es);

}  // namespace privrisk::pg
