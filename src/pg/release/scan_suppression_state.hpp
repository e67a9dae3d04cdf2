// The state of a scan's record suppression, shared by the count of the whole
// source (scan_suppression.cpp) and the count class by class through an index
// (suppression_by_class.cpp). Internal to those two files.
#pragma once

#include <memory_resource>
#include <string_view>
#include <vector>

#include "common/digest.hpp"
#include "release/scan_index.hpp"
#include "release/scan_suppression.hpp"
#include "search/search_constraints.hpp"

namespace privrisk::pg {

struct ClassIndex;

struct ScanSuppression {
    char* policy;
    char* description;   // for EXPLAIN: the quasi-identifiers and constraints
    int key_count;       // quasi-identifiers: outputs 0..key_count-1 of `keys`
    bool has_sensitive;  // keys[key_count] is the sensitive column
    ReleasedOutput* keys;
    ReleasedOutput** key_outputs;
    int16* typlen;  // of each released value's type
    bool* typbyval;
    Datum* values;  // the current row's released values
    bool* isnull;
    ValueText sensitive_text;
    Constraints constraints;  // trivially destructible
    bool histograms;
    MemoryContext context;  // the counts
    PgMemoryResource* memory;
    FlatIndex* classes;       // coded class key (class_code) -> class id, ids in order of first row
    FlatIndex** value_codes;  // per quasi-identifier: released value's bytes -> code - 1 (class_code)
    char* coded;              // class_code's key: 5 bytes per quasi-identifier at most
    // Rows counted but not yet looked up in `classes` (count_row): their coded keys,
    // coded_room apart, and hashes, whose slots are being brought into the cache.
    char* batch_keys;
    int* batch_lengths;
    uint64_t* batch_hashes;
    int batched;
    int coded_room;   // 5 * key_count
    FlatIndex* kept;  // after the decision: the classes kept, by coded key (when kept_indexed)
    bool kept_indexed;
    // The count's classes in the order it read the rows, replayed by the serial read
    // after it (a row's class is then known without its key): each row's class id, and
    // the blocks read with their rows (block << 32 | rows), by which the read checks it
    // meets the same rows. Not kept when the count is followed by another kind of
    // read, nor past privrisk.memory_limit.
    bool recording;
    std::pmr::vector<uint32_t>* sequence;
    std::pmr::vector<uint64_t>* blocks;
    // After a count in parallel: where each entry of `blocks` has its rows in
    // `sequence` (each process's rows are there apart, blocks sorted); else empty.
    std::pmr::vector<uint64_t>* run_starts;
    bool replayable;  // the sequence is whole (a read that leaves its order ends this)
    bool replaying;
    int64 replay_row;        // the next row's index in `sequence`
    std::size_t replay_run;  // the next entry of `blocks`
    uint32_t replay_left;    // rows left in the current block
    BlockNumber replay_block;
    int64 replayed;                          // rows decided so (EXPLAIN ANALYZE)
    char fingerprint[2 * kDigestBytes + 1];  // of what the quasi-identifiers' released values depend on
    std::size_t classes_hint;                // classes_hint() when the count began
    int count_workers;  // workers that counted with the leader (EXPLAIN ANALYZE); -1: a serial count
    std::pmr::vector<int64_t>* sizes;
    FlatIndex* pairs;  // (class id << 32 | sensitive id) -> pair id, with histograms
    std::pmr::vector<uint64_t>* pair_keys;
    std::pmr::vector<int64_t>* pair_counts;
    FlatIndex* sensitive_ids;                             // released sensitive value's key -> id
    std::pmr::vector<std::string_view>* sensitive_names;  // by id; data() NULL for ⊥
    StringInfoData key;
    bool decided;
    bool* keep;  // per class id
    int64 rows;
    int64 suppressed;
    bool within;
    // Per class through an index (ClassIndex below), for reads through an index.
    bool per_class_decidable;     // no constraint compares a class with the whole source (t, delta, c)
    bool decided_early;           // k and max_risk only: a class is kept once it has enough rows
    AttrNumber* qi_attno;         // each quasi-identifier's source column
    IndexableColumn* qi_access;   // how its released value shows it (scan_index.hpp); array of key_count
    struct ClassIndex* by_class;  // NULL: decided from the whole source (or not yet)
    bool by_class_tried;
};

// The released values of the quasi-identifiers (and sensitive column) of the row
// in row_slot, in u->values (varlenas detoasted). Runs in the per-tuple memory of `econtext`.
void row_values(ReleaseScanState* s, ScanSuppression* u, ExprContext* econtext);
// Those values, and the row's class key in u->key (their bytes, for the count by class).
void row_key(ReleaseScanState* s, ScanSuppression* u, ExprContext* econtext);
// The current row's class (after row_values) as the whole-source count keys it: each
// quasi-identifier's value replaced by its code in that column (a varint), so
// that a class of several text values is a key of a few bytes, held whole in its
// slot of `classes` (one memory access per row instead of two, in a table too
// large for the cache). Into u->coded; its length, or -1 when `add` is false and
// a value has no code (a class the count never saw). With `add`, may throw;
// behind guarded().
int class_code(ScanSuppression* u, bool add);
// A released value's bytes in a class key (or a sensitive value's key).
void append_value(StringInfo key, Datum value, bool null, int16 typlen, bool byval);
// The current row's sensitive value (after row_key): its key's bytes and its
// text, in the per-tuple memory of `econtext`.
struct SensitiveValue {
    std::string_view key;
    std::string_view text;  // empty when null
    bool null = true;
};
SensitiveValue row_sensitive(ScanSuppression* u, ExprContext* econtext);
// The id of sensitive value `v` among `ids`, its text copied into `names` (whose
// memory keeps it) when it is new (*added). May throw; behind guarded().
uint32_t intern_sensitive(FlatIndex* ids, std::pmr::vector<std::string_view>* names, const SensitiveValue& v,
                          bool* added);
// Counts every class of the source under the query's snapshot and decides them.
void count_and_decide(ReleaseScanState* s);
// Counts the row in row_slot (its class is looked up with a batch's: count_class_batch
// takes the rest before the counts are read), records it when recording.
void count_source_row(ReleaseScanState* s, void*);
// The classes of the rows batched so far, counted in their slots of `classes`.
// May throw; behind guarded().
void count_class_batch(ScanSuppression* u);
// Those counts into `sizes` (before anything reads it).
void drain_class_counts(ScanSuppression* u);
// The counts within privrisk.memory_limit: the record of the rows' classes goes first, then an ERROR.
void check_count_memory(ReleaseScanState* s, ScanSuppression* u);
// That ERROR's message (palloc'd) and hint, for a caller that raises it otherwise.
char* count_memory_message(const ScanSuppression* u, Size held, Size limit);
constexpr const char* kCountMemoryHint =
    "Raise privrisk.memory_limit, or suppress by fewer or coarser quasi-identifiers.";
// The record is given up (its memory is wanted for the counts; no read replays it).
// May throw; behind guarded().
void forget_sequence(ScanSuppression* u);
// Whether the record holds every row counted.
bool record_whole(const ScanSuppression* u);
// Room for the counts at once: the record of `share` of the rows the source's
// statistics expect, `classes` classes (0: none known). Memory new to the process
// is slow to touch first; growing, the count would touch it twice.
void presize_counts(ReleaseScanState* s, ScanSuppression* u, double share, std::size_t classes);
// The classes the last count of `policy` in this backend found, or 0.
std::size_t classes_hint(const char* policy);
// Counts the whole source as count_and_decide does, with parallel workers
// counting some of its blocks (parallel_count.cpp); false, having counted
// nothing, where that cannot be done.
bool count_in_parallel(ReleaseScanState* s);

// By class (suppression_by_class.cpp). The class index, if the source has one
// for the policy's quasi-identifiers; NULL otherwise.
ClassIndex* open_class_index(ReleaseScanState* s, ScanSuppression* u);
void close_class_index(ScanSuppression* u);
// Whether the class in u->key was counted already, and its verdict.
bool class_counted(const ScanSuppression* u, bool* keep);
// Counts the class of the current row (whose key is in u->key); false when it cannot.
bool count_class(ReleaseScanState* s, ScanSuppression* u, ExprContext* econtext, bool* keep);
// The class index failed a row: the whole source decides it and every row after.
void count_whole_source_instead(ReleaseScanState* s, ScanSuppression* u);

}  // namespace privrisk::pg
