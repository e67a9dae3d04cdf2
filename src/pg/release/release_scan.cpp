// privrisk.release(policy) in FROM, executed as Custom Scan (PrivriskRelease)
// (SPEC §4.2). The planner hook replaces the function scan of release() with a
// scan of the policy's source that applies every rule per row and streams the
// released rows; it is parallel-aware (a parallel heap scan of the source).
// Quals on the release are evaluated by ExecScan on the released row, so a
// WHERE on a hidden column sees only what is released.
//
// Per-row code (release_next and below) holds no C++ object with a destructor:
// the PostgreSQL calls in it may raise an ERROR and jump over its frames. What
// can throw (filling the generalization cache) runs behind guarded().
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
#include "release/policy_catalog.hpp"
#include "release/release_scan.hpp"
#include "release/release_shape.hpp"
#include "common/value_text.hpp"
#include "common/word_map.hpp"

namespace privrisk::pg {
namespace {

constexpr const char* kName = "PrivriskRelease";
constexpr long kCacheEntries = 1L << 20;  // per column; beyond it values are generalized uncached

// A source read table by table: a partitioned table, or a table with
// inheritance children (SELECT * FROM it reads theirs too).
bool read_by_tables(Relation source) {
    char kind = source->rd_rel->relkind;
    return kind == RELKIND_PARTITIONED_TABLE || (kind == RELKIND_RELATION && has_subclass(RelationGetRelid(source)));
}

// The tables holding the rows of a partitioned table (its leaf partitions) or
// of an inheritance parent (itself and its children), locked; a foreign table
// is refused. PostgreSQL-style (may raise an ERROR).
List* leaf_partitions(Relation parent) {
    List* leaves = NIL;
    ListCell* lc;
    foreach (lc, find_all_inheritors(RelationGetRelid(parent), AccessShareLock, nullptr)) {
        char kind = get_rel_relkind(lfirst_oid(lc));
        if (kind == RELKIND_FOREIGN_TABLE)
            ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                            errmsg("partition %s of %s is a foreign table: a release reads local tables only",
                                   get_rel_name(lfirst_oid(lc)), RelationGetRelationName(parent))));
        if (kind == RELKIND_RELATION) leaves = lappend_oid(leaves, lfirst_oid(lc));
    }
    return leaves;
}

// ---------------------------------------------------------------------------
// Execution state
// ---------------------------------------------------------------------------

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
    bool generalized;
    int height;
    int rule_count;
    int* rule_raised;     // the level each rule raises the column to (rule_level)
    int* rule_condition;  // index of each rule's condition
    char* name;
    char* hierarchy;
    bool by_datum;  // cache key is the datum itself
    ValueText value_text;
    LevelCache** levels;  // [height], built on first use
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
    List* partitions;  // the tables' OIDs; NIL for a plain table
    int next_partition;
    Relation partition;
    TupleTableSlot* partition_slot;
    AttrMap* partition_map;  // NULL when the partition's columns are the parent's
    AttrNumber last_attno;  // deform the source up to here
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
    int generic_count;                // and by the expression evaluator
    int* generic;
    bool may_see_errors;              // reads the source anyway: rule errors keep their text
    bool guard_errors;                // a condition runs in the generic evaluator, whose errors may name a value
    bool in_rules;                    // a rule is being applied (its errors are sanitized)
    MemoryContext cache_context;
    PgMemoryResource* cache_memory;
    uint64_t hierarchy_generation;
};

// ---------------------------------------------------------------------------
// Per row
// ---------------------------------------------------------------------------

// Every condition a read column's rule uses, once per row, on the original row.
void evaluate_conditions(ReleaseScanState* s, ExprContext* econtext) {
    const Datum* values = s->row_slot->tts_values;
    const bool* isnull = s->row_slot->tts_isnull;
    // Locals: the tests are calls through pointers, after which the state's fields would be read again.
    const int native_count = s->native_count;
    const int* native = s->native;
    FastCondition* const* fast = s->fast_conditions;
    bool* holds = s->condition_value;
    for (int k = 0; k < native_count; ++k) holds[native[k]] = fast_condition_holds(fast[native[k]], values, isnull);
    for (int k = 0; k < s->generic_count; ++k) {
        int i = s->generic[k];
        bool null;
        Datum d = ExecEvalExpr(s->conditions[i], econtext, &null);
        s->condition_value[i] = !null && DatumGetBool(d);  // unknown protects
    }
}

// Whether a value's cache key is a WordMap word (a short text), else a FlatIndex key.
bool keyed_by_word(const ReleasedOutput* out, std::string_view value) {
    return !out->by_datum && value.size() <= WordMap<text>::kMaxKey;
}

// A by-value datum as an index key: its 8 bytes.
std::string_view datum_key(const uint64_t* key) { return std::string_view(reinterpret_cast<const char*>(key), 8); }

struct MissRequest {
    ReleaseScanState* state;
    ReleasedOutput* out;
    int level;
    uint64_t key;
    std::string_view value;
    text* result;
};

// A released value as a text datum in `context`. Under 127 bytes it gets the
// 1-byte header short text has in a heap tuple: printing it then takes the same
// path as the source's own text columns (no switch between header forms per row).
text* make_text(MemoryContext context, Value v) {
    if (!v) return nullptr;
    return pg_call([&] {
        std::size_t n = v->size();
        if (n + VARHDRSZ_SHORT <= VARATT_SHORT_MAX) {
            auto* t = static_cast<char*>(MemoryContextAlloc(context, n + VARHDRSZ_SHORT));
            SET_VARSIZE_SHORT(t, n + VARHDRSZ_SHORT);
            std::memcpy(t + VARHDRSZ_SHORT, v->data(), n);
            return reinterpret_cast<text*>(t);
        }
        MemoryContext old = MemoryContextSwitchTo(context);
        text* t = cstring_to_text_with_len(v->data(), static_cast<int>(n));
        MemoryContextSwitchTo(old);
        return t;
    });
}

// Generalizes a value not in the cache, and caches it while there is room.
// May throw; runs behind guarded().
void generalize_miss(MissRequest* r) {
    ReleaseScanState* s = r->state;
    ReleasedOutput* out = r->out;
    const Hierarchy& h = cached_hierarchy(out->hierarchy);
    if (h.height() != out->height)
        fail(ErrorKind::InvalidParameter, "hierarchy " + quote_value(out->hierarchy) + " changed during the release");
    std::string scratch;
    Value g;
    try {
        g = h.generalize(r->value, r->level, scratch);
    } catch (const Error&) {
        // Never name the value: the reader may see only released data.
        fail(ErrorKind::InvalidParameter, "a value of column " + quote_value(out->name) + " is not in hierarchy " +
                                              quote_value(out->hierarchy));
    }
    if (out->cached >= kCacheEntries) {
        r->result = make_text(CurrentMemoryContext, g);
        return;
    }
    if (!out->levels[r->level]) out->levels[r->level] = construct_in<LevelCache>(s->cache_context, s->cache_memory);
    if (!out->texts) out->texts = construct_in<ReleasedTexts>(s->cache_context, s->cache_memory);
    LevelCache& cache = *out->levels[r->level];
    r->result = nullptr;
    if (g) {
        bool added;
        uint32_t id = out->texts->index.find_or_add(*g, &added);
        if (added) out->texts->texts.push_back(make_text(s->cache_context, g));
        r->result = out->texts->texts[id];
    }
    if (keyed_by_word(out, r->value)) {
        if (r->result) cache.words.put(WordMap<text>::word(r->value), r->result);  // ⊥ is not cached (it is no valid level's)
    } else {
        cache.index.find_or_add(out->by_datum ? datum_key(&r->key) : r->value);
        cache.results.push_back(r->result);
    }
    if (out->by_datum) {
        auto key = static_cast<int64_t>(r->key);
        if (cache.window.empty()) {
            cache.window.assign(LevelCache::kWindow, nullptr);
            cache.window_base = key - LevelCache::kWindow / 2;
        }
        uint64_t at = static_cast<uint64_t>(key) - static_cast<uint64_t>(cache.window_base);
        if (at < static_cast<uint64_t>(LevelCache::kWindow)) cache.window[at] = r->result;
    }
    ++out->cached;
}

// Not cached yet: generalize now (rarely; kept out of the per-row path).
__attribute__((noinline)) Datum generalized_miss(ReleaseScanState* s, ReleasedOutput* out, Datum value, int level) {
    if (s->hierarchy_generation != hierarchy_generation()) {
        // A hierarchy changed mid-query: what is cached may be stale.
        for (int c = 0; c < s->output_count; ++c)
            for (int l = 0; l < s->outputs[c].height; ++l) s->outputs[c].levels[l] = nullptr;
        s->hierarchy_generation = hierarchy_generation();
    }
    MissRequest miss{s, out, level, static_cast<uint64_t>(value), value_text(&out->value_text, value), nullptr};
    guarded([&] { generalize_miss(&miss); });
    return PointerGetDatum(miss.result);
}

// The released text of `value` at `level` (< height): from the cache, or generalized now.
inline Datum generalized_text(ReleaseScanState* s, ReleasedOutput* out, Datum value, int level) {
    if (LevelCache* cache = out->levels[level]) {
        if (out->by_datum) {
            uint64_t key = static_cast<uint64_t>(value);
            uint64_t at = key - static_cast<uint64_t>(cache->window_base);
            if (at < cache->window.size() && cache->window[at]) return PointerGetDatum(cache->window[at]);
            uint32_t id = cache->index.find(datum_key(&key));
            if (id != FlatIndex::kAbsent) return PointerGetDatum(cache->results[id]);
        } else {
            std::string_view v = value_text(&out->value_text, value);
            if (keyed_by_word(out, v)) {
                if (text* t = cache->words.find(WordMap<text>::word(v))) return PointerGetDatum(t);
            } else {
                uint32_t id = cache->index.find(v);
                if (id != FlatIndex::kAbsent) return PointerGetDatum(cache->results[id]);
            }
        }
    }
    return generalized_miss(s, out, value, level);
}

// The columns some rule touches or that are generalized, in `values`/`isnull`
// (which may be the source row's own arrays: each column reads its source value
// before writing its own entry, and the conditions ran before any). Branches on
// the row's data are kept to the one that chooses between a cache lookup and
// the value as is (the rest select): conditions hold on unpredictable rows, and
// a mispredicted jump costs more than a select.
void release_row(ReleaseScanState* s, ExprContext* econtext, Datum* values, bool* isnull) {
    const Datum* source_values = s->row_slot->tts_values;
    const bool* source_null = s->row_slot->tts_isnull;
    evaluate_conditions(s, econtext);
    const int ruled_count = s->ruled_count;
    ReleasedOutput* const* ruled = s->ruled;
    const bool* holds = s->condition_value;
    for (int k = 0; k < ruled_count; ++k) {
        ReleasedOutput* out = ruled[k];
        int c = out->output;
        Datum value = source_values[out->attno - 1];
        bool null = source_null[out->attno - 1];
        int level = released_level(
            out->rule_count, [&](int r) { return out->rule_raised[r]; },
            [&](int r) { return holds[out->rule_condition[r]]; });
        null |= level >= out->height;  // ⊥
        values[c] = value & -static_cast<Datum>(!null);  // a hidden value is not left behind its NULL
        isnull[c] = null;
        // Generalized: released as text, from the cache; a text value at level 0 needs no lookup.
        if (out->generalized && !null && !(out->value_text.kind == ValueText::Text && level == 0)) {
            values[c] = generalized_text(s, out, value, level);
            isnull[c] = !values[c];  // ⊥ below the top cannot come from a valid hierarchy; never a NULL pointer
        }
    }
}

void start_serial_scan(ReleaseScanState* s) {
    EState* estate = s->css.ss.ps.state;
    s->scan = table_beginscan(s->source, estate->es_snapshot, 0, nullptr);
}

void close_partition(ReleaseScanState* s) {
    if (s->scan) table_endscan(s->scan);
    s->scan = nullptr;
    if (s->partition) table_close(s->partition, NoLock);  // locked until the transaction ends
    s->partition = nullptr;
}

// Starts the next leaf partition's scan; false when none is left.
bool open_next_partition(ReleaseScanState* s) {
    close_partition(s);
    if (s->next_partition >= list_length(s->partitions)) return false;
    EState* estate = s->css.ss.ps.state;
    s->partition = table_open(list_nth_oid(s->partitions, s->next_partition++), NoLock);  // locked at begin
    TupleDesc desc = RelationGetDescr(s->partition);
    s->partition_slot = ExecInitExtraTupleSlot(estate, desc, table_slot_callbacks(s->partition));
    s->partition_map = build_attrmap_by_name_if_req(desc, RelationGetDescr(s->source));
    s->row_slot = s->partition_map ? s->source_slot : s->partition_slot;
    s->scan = table_beginscan(s->partition, estate->es_snapshot, 0, nullptr);
    return true;
}

// The next row of the source into row_slot; false at the end.
bool next_source_row(ReleaseScanState* s) {
    if (s->partitions == NIL) {
        if (!s->scan) start_serial_scan(s);
        return table_scan_getnextslot(s->scan, ForwardScanDirection, s->source_slot);
    }
    for (;;) {
        if (s->scan && table_scan_getnextslot(s->scan, ForwardScanDirection, s->partition_slot)) {
            if (s->partition_map) execute_attr_map_slot(s->partition_map, s->partition_slot, s->source_slot);
            return true;
        }
        if (!open_next_partition(s)) return false;
    }
}

TupleTableSlot* release_next(ScanState* ss) {
    auto* s = reinterpret_cast<ReleaseScanState*>(ss);
    TupleTableSlot* out = ss->ss_ScanTupleSlot;
    ExecClearTuple(out);
    if (!next_source_row(s)) return out;
    if (s->output_count == 0) return ExecStoreVirtualTuple(out);  // count(*): no column, no rule
    slot_getsomeattrs(s->row_slot, s->last_attno);
    if (s->in_place) {
        // The released row is the source row's deformed arrays, rewritten where a rule
        // applies: the columns released as they are cost nothing.
        out->tts_values = s->row_slot->tts_values;
        out->tts_isnull = s->row_slot->tts_isnull;
    } else {
        for (int k = 0; k < s->plain_count; ++k) {
            int c = s->plain[k];
            out->tts_values[c] = s->row_slot->tts_values[s->outputs[c].attno - 1];
            out->tts_isnull[c] = s->row_slot->tts_isnull[s->outputs[c].attno - 1];
        }
    }
    ExprContext* econtext = ss->ps.ps_ExprContext;
    econtext->ecxt_scantuple = s->row_slot;  // conditions read the original row
    MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
    s->in_rules = true;
    release_row(s, econtext, out->tts_values, out->tts_isnull);
    s->in_rules = false;
    MemoryContextSwitchTo(old);
    return ExecStoreVirtualTuple(out);
}

// The scan slot's own arrays again (after in-place rows; before rescans and at the end).
void restore_scan_slot(ReleaseScanState* s) {
    TupleTableSlot* out = s->css.ss.ss_ScanTupleSlot;
    if (!s->in_place || !out) return;
    ExecClearTuple(out);
    out->tts_values = s->slot_values;
    out->tts_isnull = s->slot_isnull;
}
bool release_recheck(ScanState*, TupleTableSlot*) { return true; }

// ---------------------------------------------------------------------------
// Executor callbacks
// ---------------------------------------------------------------------------

std::string columns_text(const std::vector<ReleasedColumn>& shape) {
    std::string s;
    for (const ReleasedColumn& c : shape) s += (s.empty() ? "" : ", ") + c.name;
    return s;
}

char* copy_string(const std::string& s) {
    const char* p = s.c_str();
    return pg_call([&] { return pstrdup(p); });
}

template <typename T>
T* zeroed_array(std::size_t n) {
    return static_cast<T*>(pg_call([&] { return palloc0(sizeof(T) * (n ? n : 1)); }));
}

void begin_release_body(ReleaseScanState* s, EState* estate) {
    auto* plan = reinterpret_cast<CustomScan*>(s->css.ss.ps.plan);
    PlanState* ps = &s->css.ss.ps;
    bool isnull = true;
    Datum name = pg_call([&] {
        auto* arg = static_cast<Expr*>(linitial(plan->custom_exprs));
        if (IsA(arg, Const)) {  // the usual case: no expression to build (nor to JIT-compile on large plans)
            isnull = castNode(Const, arg)->constisnull;
            return castNode(Const, arg)->constvalue;
        }
        ExprState* e = ExecInitExpr(arg, ps);
        return ExecEvalExprSwitchContext(e, ps->ps_ExprContext, &isnull);
    });
    if (isnull) fail(ErrorKind::InvalidParameter, "privrisk.release: policy must not be NULL");
    std::string policy_name(pg_call([&] { return text_to_cstring(DatumGetTextPP(name)); }));
    Policy policy = load_readable_policy(policy_name);
    s->policy = copy_string(policy.name);
    s->rule_count = static_cast<int>(policy.rules.size());
    s->source = open_policy_source(policy);
    Oid source = policy.source;
    s->source_name = pg_call([&] { return get_rel_name(source); });
    s->may_see_errors = reads_source(source);
    std::vector<ReleasedColumn> shape = release_shape(policy, s->source);
    bool partitioned = pg_call([&] { return read_by_tables(s->source); });
    s->source_slot = pg_call([&] {
        TupleDesc desc = RelationGetDescr(s->source);
        return ExecInitExtraTupleSlot(estate, desc, partitioned ? &TTSOpsVirtual : table_slot_callbacks(s->source));
    });
    s->row_slot = s->source_slot;
    if (partitioned) s->partitions = leaf_partitions(s->source);
    s->cache_context = pg_call([] {
        return AllocSetContextCreate(CurrentMemoryContext, "privrisk release cache", ALLOCSET_DEFAULT_SIZES);
    });
    s->cache_memory = construct_in<PgMemoryResource>(s->cache_context, s->cache_context);
    s->hierarchy_generation = hierarchy_generation();

    // Conditions, each compiled once however many rules share its bound tree;
    // conditions[i] is the first rule with that tree.
    std::vector<std::size_t> conditions;
    std::vector<int> rule_condition(policy.rules.size());
    for (std::size_t r = 0; r < policy.rules.size(); ++r) {
        std::size_t i = 0;
        while (i < conditions.size() && policy.rules[conditions[i]].condition_tree != policy.rules[r].condition_tree)
            ++i;
        if (i == conditions.size()) conditions.push_back(r);
        rule_condition[r] = static_cast<int>(i);
    }
    std::vector<char> condition_used(conditions.size(), 0);

    // Output columns: those of the column definition list the plan reads.
    TupleDesc desc = s->css.ss.ss_ScanTupleSlot->tts_tupleDescriptor;
    s->output_count = desc->natts;
    s->outputs = zeroed_array<ReleasedOutput>(desc->natts);
    for (int c = 0; c < desc->natts; ++c) {
        Form_pg_attribute a = TupleDescAttr(desc, c);
        std::string column = NameStr(a->attname);
        const ReleasedColumn* col = nullptr;
        for (const ReleasedColumn& rc : shape)
            if (rc.name == column) col = &rc;
        if (!col)
            fail(ErrorKind::UndefinedObject, "the release of policy " + quote_value(policy.name) +
                                                 " has no column " + quote_value(column) + " (its columns: " +
                                                 columns_text(shape) + ")");
        if (col->type != a->atttypid) {
            Oid want = col->type, have = a->atttypid;
            std::string want_name = pg_call([&] { return format_type_be(want); });
            std::string have_name = pg_call([&] { return format_type_be(have); });
            fail(ErrorKind::InvalidParameter,
                 "column " + quote_value(column) + " of the release of policy " + quote_value(policy.name) + " is " +
                     want_name + ", not " + have_name +
                     "; the column definition list (or release view) is out of date: recreate it with "
                     "privrisk.create_release_view");
        }
        ReleasedOutput& out = s->outputs[c];
        out.output = c;
        out.attno = col->attno;
        out.generalized = !col->hierarchy.empty();
        out.height = col->height;
        out.name = copy_string(col->name);
        out.rule_count = static_cast<int>(col->rules.size());
        out.rule_raised = zeroed_array<int>(col->rules.size());
        out.rule_condition = zeroed_array<int>(col->rules.size());
        for (std::size_t r = 0; r < col->rules.size(); ++r) {
            const PolicyRule& rule = policy.rules[col->rules[r]];
            out.rule_raised[r] = rule_level({rule.op, rule.level}, out.height);
            out.rule_condition[r] = rule_condition[col->rules[r]];
        }
        if (out.generalized) {
            out.hierarchy = copy_string(col->hierarchy);
            out.levels = zeroed_array<LevelCache*>(out.height);
            Oid type = col->source_type;
            pg_call([&] {
                init_value_text(&out.value_text, type, CurrentMemoryContext);
                int16 length;
                bool by_value;
                get_typlenbyval(type, &length, &by_value);
                out.by_datum = by_value;
            });
        }
        s->last_attno = std::max(s->last_attno, out.attno);
        for (std::size_t r = 0; r < col->rules.size(); ++r) condition_used[out.rule_condition[r]] = 1;
    }

    // Only conditions of columns the plan reads run (and are checked again here):
    // count(*) through a release reads no column and applies no rule.
    s->condition_count = static_cast<int>(conditions.size());
    s->conditions = zeroed_array<ExprState*>(conditions.size());
    s->fast_conditions = zeroed_array<FastCondition*>(conditions.size());
    s->condition_value = zeroed_array<bool>(conditions.size());
    Bitmapset* read = nullptr;  // source columns the conditions read
    for (std::size_t i = 0; i < conditions.size(); ++i) {
        if (!condition_used[i]) continue;
        Expr* e = load_condition(s->source, policy.rules[conditions[i]], policy.name);
        pg_call([&] {
            pull_varattnos(reinterpret_cast<Node*>(e), 1, &read);
            s->fast_conditions[i] = compile_fast_condition(e);
            if (!s->fast_conditions[i]) s->conditions[i] = ExecInitExpr(e, ps);  // the evaluator only where needed
        });
    }
    for (int k = -1; (k = bms_next_member(read, k)) >= 0;)
        s->last_attno = std::max<AttrNumber>(s->last_attno, k + FirstLowInvalidHeapAttributeNumber);
    s->native = zeroed_array<int>(s->condition_count);
    s->generic = zeroed_array<int>(s->condition_count);
    for (int i = 0; i < s->condition_count; ++i) {
        if (s->fast_conditions[i]) s->native[s->native_count++] = i;
        if (s->conditions[i]) s->generic[s->generic_count++] = i;
    }
    // Native conditions raise no error and hierarchy misses report no value
    // (generalize_miss), so only the generic evaluator needs the per-row guard.
    s->guard_errors = !s->may_see_errors && s->generic_count > 0;

    s->ruled = zeroed_array<ReleasedOutput*>(s->output_count);
    s->plain = zeroed_array<int>(s->output_count);
    s->in_place = s->output_count > 0;
    for (int c = 0; c < s->output_count; ++c) {
        const ReleasedOutput& out = s->outputs[c];
        if (out.rule_count > 0 || out.generalized)
            s->ruled[s->ruled_count++] = &s->outputs[c];
        else
            s->plain[s->plain_count++] = c;
        s->in_place &= out.attno == c + 1;
    }
    s->slot_values = s->css.ss.ss_ScanTupleSlot->tts_values;
    s->slot_isnull = s->css.ss.ss_ScanTupleSlot->tts_isnull;
}

void begin_release(CustomScanState* node, EState* estate, int) {
    guarded([&] { begin_release_body(reinterpret_cast<ReleaseScanState*>(node), estate); });
}

// Errors raised while a rule is applied may carry a source value (a cast in a
// condition evaluated generically): a reader who may not see the source gets the
// error without its text. Without such a condition the per-row PG_TRY is skipped.
TupleTableSlot* exec_release(CustomScanState* node) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    if (!s->guard_errors) {
        // ExecScan's own shortcut when there is no qual, projection or recheck to do,
        // without its call through a pointer per row.
        if (!node->ss.ps.qual && !node->ss.ps.ps_ProjInfo && !node->ss.ps.state->es_epq_active) {
            ResetExprContext(node->ss.ps.ps_ExprContext);
            CHECK_FOR_INTERRUPTS();
            return release_next(&node->ss);
        }
        return ExecScan(&node->ss, release_next, release_recheck);
    }
    TupleTableSlot* volatile result = nullptr;
    MemoryContext context = CurrentMemoryContext;
    PG_TRY();
    {
        result = ExecScan(&node->ss, release_next, release_recheck);
    }
    PG_CATCH();
    {
        if (!s->in_rules) PG_RE_THROW();
        MemoryContextSwitchTo(context);
        ErrorData* e = CopyErrorData();
        FlushErrorState();
        s->in_rules = false;
        ereport(ERROR, (errcode(e->sqlerrcode),
                        errmsg("privrisk.release(%s): applying a disclosure rule failed on a row of the source",
                               quote_literal_cstr(s->policy)),
                        errdetail("The error's text is shown only to roles that may read the source.")));
    }
    PG_END_TRY();
    return result;
}

void end_release(CustomScanState* node) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    restore_scan_slot(s);
    close_partition(s);
    if (s->source) table_close(s->source, NoLock);
    s->source = nullptr;
}

void rescan_release(CustomScanState* node) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    restore_scan_slot(s);
    if (s->partitions != NIL) {
        close_partition(s);
        s->next_partition = 0;
    } else if (s->scan) {
        table_rescan(s->scan, nullptr);
    }
}

Size estimate_release_dsm(CustomScanState* node, ParallelContext*) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    return table_parallelscan_estimate(s->source, node->ss.ps.state->es_snapshot);
}

void initialize_release_dsm(CustomScanState* node, ParallelContext*, void* coordinate) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    auto* shared = static_cast<ParallelTableScanDesc>(coordinate);
    table_parallelscan_initialize(s->source, shared, node->ss.ps.state->es_snapshot);
    s->scan = table_beginscan_parallel(s->source, shared);
}

void reinitialize_release_dsm(CustomScanState* node, ParallelContext*, void* coordinate) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    table_parallelscan_reinitialize(s->source, static_cast<ParallelTableScanDesc>(coordinate));
}

void initialize_release_worker(CustomScanState* node, shm_toc*, void* coordinate) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    s->scan = table_beginscan_parallel(s->source, static_cast<ParallelTableScanDesc>(coordinate));
}

void explain_release(CustomScanState* node, List*, ExplainState* es) {
    auto* s = reinterpret_cast<ReleaseScanState*>(node);
    ExplainPropertyText("Policy", s->policy, es);
    ExplainPropertyText("Source", s->source_name ? s->source_name : "?", es);
    ExplainPropertyInteger("Rules", nullptr, s->rule_count, es);
    // Conditions of the columns read, and how many of them run natively.
    ExplainPropertyInteger("Conditions Evaluated", nullptr, s->native_count + s->generic_count, es);
    ExplainPropertyInteger("Conditions Native", nullptr, s->native_count, es);
}

const CustomExecMethods exec_methods = {
    kName,
    begin_release,
    exec_release,
    end_release,
    rescan_release,
    nullptr,
    nullptr,
    estimate_release_dsm,
    initialize_release_dsm,
    reinitialize_release_dsm,
    initialize_release_worker,
    nullptr,
    explain_release,
};

Node* create_release_state(CustomScan*) {
    auto* s = reinterpret_cast<ReleaseScanState*>(newNode(sizeof(ReleaseScanState), T_CustomScanState));
    s->css.methods = &exec_methods;
    return reinterpret_cast<Node*>(s);
}

const CustomScanMethods scan_methods = {kName, create_release_state};

// ---------------------------------------------------------------------------
// Planning
// ---------------------------------------------------------------------------

// The columns of release() the plan reads — its target and its quals — as
// pull_varattnos numbers them (offset by FirstLowInvalidHeapAttributeNumber).
Bitmapset* columns_read(RelOptInfo* rel) {
    Bitmapset* read = nullptr;
    pull_varattnos(reinterpret_cast<Node*>(rel->reltarget->exprs), rel->relid, &read);
    ListCell* lc;
    foreach (lc, rel->baserestrictinfo)
        pull_varattnos(reinterpret_cast<Node*>(lfirst_node(RestrictInfo, lc)->clause), rel->relid, &read);
    return read;
}

// The scan tuple holds only the columns the plan reads (its target list and
// quals), so a rule runs only where its column is read: count(*) runs none.
Plan* plan_release(PlannerInfo* root, RelOptInfo* rel, CustomPath* path, List*, List* clauses, List*) {
    RangeTblEntry* rte = planner_rt_fetch(rel->relid, root);
    auto* function = static_cast<RangeTblFunction*>(linitial(rte->functions));
    auto* call = reinterpret_cast<FuncExpr*>(function->funcexpr);
    // The path's own target, not a physical tlist of every column.
    List* tlist = make_tlist_from_pathtarget(path->path.pathtarget);
    List* quals = extract_actual_clauses(clauses, false);
    Bitmapset* read = columns_read(rel);
    List* scan_tlist = NIL;
    for (int k = -1; (k = bms_next_member(read, k)) >= 0;) {
        AttrNumber attno = k + FirstLowInvalidHeapAttributeNumber;
        if (attno <= 0)
            ereport(ERROR, (errcode(ERRCODE_FEATURE_NOT_SUPPORTED),
                            errmsg("privrisk.release(): a whole-row reference to the release is not supported"),
                            errhint("Name its columns, or read it through a release view.")));
        Var* var = makeVar(rel->relid, attno, list_nth_oid(function->funccoltypes, attno - 1),
                           list_nth_int(function->funccoltypmods, attno - 1),
                           list_nth_oid(function->funccolcollations, attno - 1), 0);
        char* name = strVal(list_nth(rte->eref->colnames, attno - 1));
        scan_tlist = lappend(scan_tlist, makeTargetEntry(reinterpret_cast<Expr*>(var), list_length(scan_tlist) + 1,
                                                         name, false));
    }
    CustomScan* scan = makeNode(CustomScan);
    scan->scan.plan.targetlist = tlist;
    scan->scan.plan.qual = quals;
    scan->scan.scanrelid = 0;
    scan->flags = path->flags;
    scan->custom_scan_tlist = scan_tlist;
    scan->custom_exprs = list_make1(copyObjectImpl(linitial(call->args)));
    scan->custom_private = NIL;
    scan->methods = &scan_methods;
    return &scan->scan.plan;
}

const CustomPathMethods path_methods = {kName, plan_release, nullptr};

Oid release_function() {
    static Oid argtypes[1] = {TEXTOID};
    List* name = list_make2(makeString(const_cast<char*>("privrisk")), makeString(const_cast<char*>("release")));
    return LookupFuncName(name, 1, argtypes, true);
}

void add_release_paths(PlannerInfo* root, RelOptInfo* rel, RangeTblEntry* rte) {
    auto* function = static_cast<RangeTblFunction*>(linitial(rte->functions));
    auto* call = reinterpret_cast<FuncExpr*>(function->funcexpr);  // the hook checked: release(), alone
    if (!bms_is_empty(rel->lateral_relids))
        fail(ErrorKind::InvalidParameter, "privrisk.release(): the policy may not refer to other FROM items");
    Node* policy = reinterpret_cast<Node*>(linitial(call->args));
    // A constant, or a parameter of a prepared statement: anything else (a
    // subquery, a volatile expression) is refused before it is planned further.
    if (!IsA(policy, Const) && !(IsA(policy, Param) && reinterpret_cast<Param*>(policy)->paramkind == PARAM_EXTERN))
        fail(ErrorKind::InvalidParameter,
             "privrisk.release(): the policy must be a constant (or a parameter), not an expression or a subquery");
    SourceSize size = release_source_size(policy);
    // Only the rules of columns the plan reads run (count(*) runs none).
    Bitmapset* read = pg_call([&] { return columns_read(rel); });
    int rules = 0;
    for (int k = -1; (k = bms_next_member(read, k)) >= 0;) {
        int attno = k + FirstLowInvalidHeapAttributeNumber;
        if (attno <= 0 || attno > list_length(rte->eref->colnames)) continue;
        std::string column = strVal(list_nth(rte->eref->colnames, attno - 1));
        for (const std::string& c : size.rule_columns) rules += c == column;
    }

    // Cost as a sequential scan of the source plus the rules per row.
    double pages = size.known ? size.pages : 10;
    double tuples = size.known ? size.tuples : rel->tuples;
    double cpu_per_tuple = cpu_tuple_cost + rules * cpu_operator_cost + rel->baserestrictcost.per_tuple;
    double startup = rel->baserestrictcost.startup + rel->reltarget->cost.startup;
    double target = rel->reltarget->cost.per_tuple * rel->rows;
    rel->pathlist = NIL;
    rel->partial_pathlist = NIL;
    auto make_path = [&](int workers) {
        CustomPath* path = makeNode(CustomPath);
        path->path.pathtype = T_CustomScan;
        path->path.parent = rel;
        path->path.pathtarget = rel->reltarget;
        path->path.param_info = nullptr;
        path->path.parallel_aware = workers > 0;
        path->path.parallel_safe = rel->consider_parallel;
        path->path.parallel_workers = workers;
        double divisor = 1;
        if (workers > 0) {
            divisor = workers;
            double leader = 1.0 - 0.3 * workers;  // as costsize.c's get_parallel_divisor
            if (parallel_leader_participation && leader > 0) divisor += leader;
        }
        path->path.rows = clamp_row_est(rel->rows / divisor);
        path->path.startup_cost = startup;
        path->path.total_cost = startup + seq_page_cost * pages + (cpu_per_tuple * tuples + target) / divisor;
        path->flags = 0;
        path->custom_private = NIL;
        path->methods = &path_methods;
        return &path->path;
    };
    pg_call([&] {
        add_path(rel, make_path(0));
        if (rel->consider_parallel && !size.partitioned) {  // a partitioned source is read serially
            int workers = compute_parallel_worker(rel, pages, -1, max_parallel_workers_per_gather);
            if (workers > 0) add_partial_path(rel, make_path(workers));
        }
    });
}

set_rel_pathlist_hook_type previous_pathlist_hook = nullptr;

void release_pathlist_hook(PlannerInfo* root, RelOptInfo* rel, Index rti, RangeTblEntry* rte) {
    if (previous_pathlist_hook) previous_pathlist_hook(root, rel, rti, rte);
    if (rte->rtekind != RTE_FUNCTION || IS_DUMMY_REL(rel)) return;
    Oid release = release_function();
    bool found = false;
    ListCell* lc;
    foreach (lc, rte->functions) {
        Node* e = lfirst_node(RangeTblFunction, lc)->funcexpr;
        if (IsA(e, FuncExpr) && OidIsValid(release) && reinterpret_cast<FuncExpr*>(e)->funcid == release) found = true;
    }
    if (!found) return;
    if (list_length(rte->functions) != 1 || rte->funcordinality)
        ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                        errmsg("privrisk.release() must be the only function of its FROM item, without WITH "
                               "ORDINALITY")));
    guarded([&] { add_release_paths(root, rel, rte); });
}

}  // namespace

SourceSize release_source_size(Node* policy) {
    SourceSize size{false, false, 0, 0, {}};
    if (!IsA(policy, Const) || reinterpret_cast<Const*>(policy)->constisnull) return size;
    Datum value = reinterpret_cast<Const*>(policy)->constvalue;
    std::string name(pg_call([&] { return text_to_cstring(DatumGetTextPP(value)); }));
    std::optional<Policy> p = find_policy(name);
    // Nothing of a policy the caller may not read shapes the plan (the scan
    // reports it when it starts, the same way for missing and unreadable).
    if (!p || !may_read_release(*p)) return size;
    Oid source = p->source;
    if (!pg_call([&] { return SearchSysCacheExists1(RELOID, ObjectIdGetDatum(source)); })) return size;
    pg_call([&] {
        Relation rel = table_open(source, AccessShareLock);
        char kind = rel->rd_rel->relkind;
        size.partitioned = read_by_tables(rel);
        List* parts = size.partitioned ? leaf_partitions(rel) : list_make1_oid(source);
        size.known = kind == RELKIND_RELATION || kind == RELKIND_MATVIEW || size.partitioned;
        ListCell* lc;
        foreach (lc, size.known ? parts : NIL) {
            Relation part = lfirst_oid(lc) == source ? rel : table_open(lfirst_oid(lc), NoLock);
            BlockNumber pages;
            double tuples, allvisfrac;
            estimate_rel_size(part, nullptr, &pages, &tuples, &allvisfrac);
            size.pages += pages;
            size.tuples += tuples;
            if (part != rel) table_close(part, NoLock);
        }
        table_close(rel, AccessShareLock);
    });
    for (const PolicyRule& rule : p->rules) size.rule_columns.push_back(rule.column);
    return size;
}

void register_release_scan() {
    RegisterCustomScanMethods(&scan_methods);
    previous_pathlist_hook = set_rel_pathlist_hook;
    set_rel_pathlist_hook = release_pathlist_hook;
}

}  // namespace privrisk::pg
