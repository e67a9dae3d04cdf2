// Record suppression in a release scan (docs/release.md, "Record suppression"):
// before its first row, the scan counts the classes of the whole source as the
// query's snapshot sees it — a class is the tuple of the quasi-identifiers'
// released values — and withholds the rows of the classes that violate the
// policy's per-class constraints (violating_classes, the search's own decision).
#pragma once

#include "release/scan_state.hpp"

namespace privrisk::pg {

// The suppression state of a scan of `policy`, or NULL when the policy has none.
// Marks the conditions the quasi-identifiers' rules use; counts nothing yet.
// `for_coordinator`: read by a coordinator over shards, which is refused.
ScanSuppression* begin_suppression(ReleaseScanState* s, const Policy& policy, const std::vector<ReleasedColumn>& shape,
                                   const std::vector<int>& rule_condition, std::vector<char>& condition_used,
                                   bool for_coordinator);

// Counts the source and decides, once per scan: before its first row is read.
void prepare_suppression(ReleaseScanState* s);

// Whether the source row in row_slot is released. Evaluates the row's
// conditions (in the per-tuple memory of `econtext`) unless *conditions_done
// says it did not (a verdict replayed from the count's record).
bool suppression_keeps_row(ReleaseScanState* s, ExprContext* econtext, bool* conditions_done);

// A scan that reads through an index decides class by class, through an index
// of the source on quasi-identifiers, when it can (scan_suppression.cpp); the
// setting privrisk.release_suppression_by_class turns it off.
void define_suppression_setting();
bool release_suppression_by_class();
// The rows are read again from the first (the decision stands: same snapshot).
void rescan_suppression(ReleaseScanState* s);
// Closes what the scan opened (the class index); at its end.
void end_suppression(ReleaseScanState* s);
// For EXPLAIN: the class index, classes counted and candidates read, if deciding by class.
bool suppression_by_class(const ScanSuppression* u, const char** index, int64* classes, int64* read);

}  // namespace privrisk::pg

namespace privrisk::pg {

// The decision the last suppressing scan of `policy` in this backend's leader
// made (release_suppression()); false when none since forget_suppression_decision().
bool last_suppression_decision(const char* policy, int64* rows, int64* suppressed, double* max_suppression,
                               bool* within);
void forget_suppression_decision();
// What EXPLAIN says of it.
const char* suppression_description(const ScanSuppression* u);
// The rows whose class the read took from the count's record of it (EXPLAIN ANALYZE).
int64 suppression_rows_replayed(const ScanSuppression* u);
// The parallel workers that counted the source with the leader; -1 for a serial count (EXPLAIN ANALYZE).
int suppression_count_workers(const ScanSuppression* u);

}  // namespace privrisk::pg
