// The state of a release scan (Custom Scan (PrivriskRelease)), shared by its
// planning, execution and value cache. release_scan.hpp is the entry point.
#pragma once

#include <cstring>
#include <memory_resource>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include "common/error.hpp"
#include "release/fast_condition.hpp"
#include "common/flat_index.hpp"
#include "common/guard.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "common/memory.hpp"
#include "release/condition_binding.hpp"
#include "release/policy_access.hpp"
#include "release/policy_catalog.hpp"
#include "release/pseudonym.hpp"
#include "release/release_shape.hpp"
#include "common/value_text.hpp"
#include "common/word_map.hpp"

namespace privrisk::pg {

constexpr const char* kReleaseScanName = "PrivriskRelease";
constexpr long kCacheEntries = 1L << 20;  // per column; beyond it values are generalized uncached
constexpr long kUncachedMisses = 32;      // through an index, a scan's first misses are generalized uncached

// A source read table by table: a partitioned table, or a table with
// inheritance children (SELECT * FROM it reads theirs too).
inline bool read_by_tables(Relation source) {
    char kind = source->rd_rel->relkind;
    return kind == RELKIND_PARTITIONED_TABLE || (kind == RELKIND_RELATION && has_subclass(RelationGetRelid(source)));
}

// The tables holding the rows of a partitioned table (its leaf partitions) or
// of an inheritance parent (itself and its children), locked; a foreign table
// is refused. PostgreSQL-style (may raise an ERROR).
inline List* leaf_partitions(Relation parent) {
    List* leaves = NIL;
    ListCell* lc;
    foreach (lc, find_all_inheritors(RelationGetRelid(parent), AccessShareLock, nullptr)) {
        char kind = get_rel_relkind(lfirst_oid(lc));
        if (kind == RELKIND_FOREIGN_TABLE)
            ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                            errmsg("partition %s of %s is a foreign table: release() reads local tables only",
                                   get_rel_name(lfirst_oid(lc)), RelationGetRelationName(parent)),
                            errhint("Over shards, read the release through a view made by create_release_view: "
                                    "it reads the shards' own release views (docs/scale-out.md).")));
        if (kind == RELKIND_RELATION) leaves = lappend_oid(leaves, lfirst_oid(lc));
    }
    return leaves;
}

// Generalized text per source value, for one column and level: the value's
// key (its datum for by-value types, else its text) indexes the results. Lives
// in the scan's cache context and is never destroyed: the context goes with the query.
struct LevelCache {
    explicit LevelCache(std::pmr::memory_resource* memory)
        : index(memory), results(memory), words(memory), window(memory) {}
    FlatIndex index;                  // keys of by-value datums, and longer texts
    std::pmr::vector<text*> results;  // by id in index
    WordMap<text> words;              // text keys of up to WordMap::kMaxKey bytes: one slot read
    // By-value keys near the first one seen (ages, years, small codes) are also
    // found by position: one load instead of a hash probe.
    static constexpr int64_t kWindow = 4096;
    int64_t window_base = 0;
    std::pmr::vector<text*> window;  // [kWindow] once a by-value key was cached
};

// One text per distinct released string of a column: the values that generalize
// alike share it, so the rows read (and print) a few hot texts, not one per value.
struct ReleasedTexts {
    explicit ReleasedTexts(std::pmr::memory_resource* memory) : index(memory), texts(memory) {}
    FlatIndex index;
    std::pmr::vector<text*> texts;  // by id in index
};

struct ReleasedOutput {
    int output;        // its index in the released row
    AttrNumber attno;  // in the source
    bool generalized;  // released as text through the value cache: gen or pseudonymize rules
    int height;
    int rule_count;
    int* rule_raised;     // the level each rule raises the column to (rule_level)
    int* rule_condition;  // index of each rule's condition
    char* name;
    char* hierarchy;
    Pseudonymizer* pseudonymizer;  // pseudonymized (level 1 is the pseudonym): the policy's PRF key, else NULL
    PseudonymCache* pseudonyms;    // its recent pseudonyms (instead of the value cache), built on first use
    bool pseudonyms_refused;       // no room for them within privrisk.memory_limit
    bool by_datum;                 // cache key is the datum itself
    ValueText value_text;
    LevelCache** levels;   // [height], built on first use
    ReleasedTexts* texts;  // built on first use
    long cached;
};

struct ReleaseScanState {
    CustomScanState css;
    char* policy;
    char* source_name;
    int rule_count;
    Relation source;
    TableScanDesc scan;
    TupleTableSlot* source_slot;  // the source's row: a heap slot, or (read table by table) a virtual one
    TupleTableSlot* row_slot;     // where the current row is: source_slot or the partition's slot
    // A partitioned or inheritance source is read one table after another (serially),
    // each row mapped to the parent's columns when a partition orders them differently.
    List* partitions;  // the tables' OIDs; NIL for a plain table (or a partitioned one with none)
    bool by_tables;    // a partitioned source: read table by table (its parent has no storage)
    int next_partition;
    Relation partition;
    TupleTableSlot* partition_slot;
    AttrMap* partition_map;  // NULL when the partition's columns are the parent's
    AttrNumber last_attno;   // deform the source up to here
    int output_count;
    ReleasedOutput* outputs;
    int ruled_count;  // outputs some rule touches or that are generalized
    ReleasedOutput** ruled;
    int plain_count;  // outputs released as they are
    int* plain;
    // Output c is source column c + 1 for every c: the released row is built in the
    // source row's arrays (the scan slot points at them; its own are kept here).
    bool in_place;
    Datum* slot_values;
    bool* slot_isnull;
    int condition_count;
    ExprState** conditions;           // conditions of read columns without a native form, else NULL
    FastCondition** fast_conditions;  // the native form where the shape allows, else NULL
    bool* condition_value;            // per row: TRUE discloses
    int native_count;                 // the conditions evaluated per row: natively,
    int* native;
    int generic_count;  // and by the expression evaluator
    int* generic;
    bool may_see_errors;           // reads the source anyway: rule errors keep their text
    Oid built_as;                  // the user the scan was begun as (a cursor may be read as another)
    bool guard_errors;             // a condition runs in the generic evaluator, whose errors may name a value
    bool in_rules;                 // a rule is being applied (its errors are sanitized)
    Pseudonymizer* pseudonymizer;  // the policy's key when a read column is pseudonymized (wiped at the end)
    MemoryContext cache_context;
    PgMemoryResource* cache_memory;
    Size cache_limit;    // privrisk.memory_limit when the scan began: past it, nothing more is cached
    long cache_refused;  // values generalized uncached because the cache was full
    long misses;         // value cache misses so far
    uint64_t hierarchy_generation;
    struct ScanSuppression* suppression;  // the policy's record suppression (scan_suppression.hpp), else NULL
    struct IndexAccess* index_access;     // the source read through an index (scan_index.hpp), else NULL
    bool counting;                        // record suppression reads the whole source: never through the index
};

// The scan's methods (scan_execution.cpp), named by the plan (scan_planning.cpp).
extern const CustomScanMethods release_scan_methods;

// Shared with record suppression (scan_suppression.cpp), from scan_execution.cpp:
// output `index` releasing `col`, its rules' conditions marked used;
void init_output(ReleaseScanState* s, ReleasedOutput& out, int index, const ReleasedColumn& col, const Policy& policy,
                 const std::vector<int>& rule_condition, std::vector<char>& condition_used);
// the current row's conditions, then the released values of `outputs`;
void evaluate_row_conditions(ReleaseScanState* s, ExprContext* econtext);
// In a PG_CATCH of an error raised while a rule was applied (in_rules): the same
// ERROR without its text, which may hold a source value (to a reader who may not
// read the source). `context`: the one current before the PG_TRY.
[[noreturn]] void reraise_rule_error(ReleaseScanState* s, MemoryContext context);
// The ERROR of a read that meets a catalog other than the one it began with:
// "release of policy P: <what>", hint "Read the release again."
[[noreturn]] void refuse_changed_release(const char* policy, const char* what);
void release_values(ReleaseScanState* s, ReleasedOutput* const* outputs, int count, Datum* values, bool* isnull);
// every row of the source, by a scan of its own.
void for_each_source_row(ReleaseScanState* s, void (*on_row)(ReleaseScanState*, void*), void* arg);

}  // namespace privrisk::pg
