// Record suppression in a release scan (scan_suppression.hpp; docs/release.md,
// "Record suppression").
//
// The decision is made once per scan, at its first row, from the whole source
// under the query's snapshot (es_snapshot): never from the query's quals (they
// run above the scan, on released rows), never from numbers stored earlier. A
// parallel worker makes it again from the same snapshot, so leader and workers
// withhold the same classes. A rescan keeps it (same snapshot). EXPLAIN
// without ANALYZE runs no row, so counts nothing.
//
// The per-row code here (count_row, row_class) holds no C++ object with a
// destructor: what may throw (the counts growing, the decision) runs behind guarded().
#include "release/scan_suppression.hpp"

#include <algorithm>

#include "release/scan_index.hpp"
#include "release/suppression_catalog.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "search/class_suppression.hpp"
#include "search/search_constraints.hpp"
#include "common/args.hpp"
#include "measures/measures.hpp"

extern "C" {
#include "access/genam.h"
#include "access/nbtree.h"
#include "catalog/index.h"
#include "catalog/pg_am_d.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
}

namespace privrisk::pg {

struct ClassIndex;

struct ScanSuppression {
    char* policy;
    char* description;             // for EXPLAIN: the quasi-identifiers and constraints
    int key_count;                 // quasi-identifiers: outputs 0..key_count-1 of `keys`
    bool has_sensitive;            // keys[key_count] is the sensitive column
    ReleasedOutput* keys;
    ReleasedOutput** key_outputs;
    int16* typlen;                 // of each released value's type
    bool* typbyval;
    Datum* values;                 // the current row's released values
    bool* isnull;
    ValueText sensitive_text;
    Constraints constraints;       // trivially destructible
    bool histograms;
    MemoryContext context;         // the counts
    PgMemoryResource* memory;
    FlatIndex* classes;            // class key -> class id, ids in order of first row
    std::pmr::vector<int64_t>* sizes;
    FlatIndex* pairs;              // (class id << 32 | sensitive id) -> pair id, with histograms
    std::pmr::vector<uint64_t>* pair_keys;
    std::pmr::vector<int64_t>* pair_counts;
    FlatIndex* sensitive_ids;      // released sensitive value's key -> id
    std::pmr::vector<std::string_view>* sensitive_names;  // by id; data() NULL for ⊥
    StringInfoData key;
    bool decided;
    bool* keep;                    // per class id
    int64 rows;
    int64 suppressed;
    bool within;
    // Per class through an index (ClassIndex below), for reads through an index.
    bool per_class_decidable;      // no constraint compares a class with the whole source (t, delta, c)
    bool decided_early;            // k and max_risk only: a class is kept once it has enough rows
    AttrNumber* qi_attno;          // each quasi-identifier's source column
    IndexableColumn* qi_access;    // how its released value shows it (scan_index.hpp); array of key_count
    struct ClassIndex* by_class;   // NULL: decided from the whole source (or not yet)
    bool by_class_tried;
};

namespace {

bool by_class_enabled = true;

// What the last decision of this backend's leader said, for release_suppression().
struct LastDecision {
    char policy[1024];
    int64 rows, suppressed;
    double max_suppression;
    bool within;
    bool valid;
} last_decision;

void append_value(StringInfo key, Datum value, bool null, int16 typlen, bool byval) {
    appendStringInfoChar(key, null ? 0 : 1);
    if (null) return;
    const char* data;
    uint32 length;
    if (byval) {
        data = reinterpret_cast<const char*>(&value);
        length = sizeof(Datum);
    } else if (typlen == -1) {
        struct varlena* v = pg_detoast_datum_packed(reinterpret_cast<struct varlena*>(DatumGetPointer(value)));
        data = VARDATA_ANY(v);
        length = VARSIZE_ANY_EXHDR(v);
    } else if (typlen == -2) {
        data = DatumGetCString(value);
        length = strlen(data);
    } else {
        data = DatumGetPointer(value);
        length = typlen;
    }
    appendBinaryStringInfo(key, reinterpret_cast<const char*>(&length), sizeof(length));
    appendBinaryStringInfo(key, data, static_cast<int>(length));
}

// The released values of the row's quasi-identifiers (and sensitive column), and
// its class key in u->key. Runs in the per-tuple memory of `econtext`.
void row_key(ReleaseScanState* s, ScanSuppression* u, ExprContext* econtext) {
    slot_getsomeattrs(s->row_slot, s->last_attno);
    econtext->ecxt_scantuple = s->row_slot;  // conditions read the original row
    MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
    s->in_rules = true;
    evaluate_row_conditions(s, econtext);
    release_values(s, u->key_outputs, u->key_count + u->has_sensitive, u->values, u->isnull);
    resetStringInfo(&u->key);
    for (int j = 0; j < u->key_count; ++j) append_value(&u->key, u->values[j], u->isnull[j], u->typlen[j], u->typbyval[j]);
    s->in_rules = false;
    MemoryContextSwitchTo(old);
}

struct CountRequest {
    ScanSuppression* u;
    std::string_view key;
    std::string_view sensitive_key;
    std::string_view sensitive_text;
    bool sensitive_null;
};

// Adds the row to its class (and its class's histogram). May throw; behind guarded().
void count_in_class(CountRequest* r) {
    ScanSuppression* u = r->u;
    bool added;
    uint32_t id = u->classes->find_or_add(r->key, &added);
    if (added) u->sizes->push_back(0);
    ++(*u->sizes)[id];
    if (!u->histograms) return;
    uint32_t sensitive = u->sensitive_ids->find_or_add(r->sensitive_key, &added);
    if (added) {
        std::string_view name;
        if (!r->sensitive_null) {
            char* copy = static_cast<char*>(u->memory->allocate(r->sensitive_text.size() + 1, 1));
            memcpy(copy, r->sensitive_text.data(), r->sensitive_text.size());
            name = std::string_view(copy, r->sensitive_text.size());
        }
        u->sensitive_names->push_back(name);
    }
    uint64_t pair = uint64_t(id) << 32 | sensitive;
    uint32_t p = u->pairs->find_or_add(std::string_view(reinterpret_cast<const char*>(&pair), sizeof(pair)), &added);
    if (added) {
        u->pair_keys->push_back(pair);
        u->pair_counts->push_back(0);
    }
    ++(*u->pair_counts)[p];
}

void count_row(ReleaseScanState* s, void*) {
    ScanSuppression* u = s->suppression;
    ExprContext* econtext = s->css.ss.ps.ps_ExprContext;
    ResetExprContext(econtext);
    row_key(s, u, econtext);
    CountRequest r{u, std::string_view(u->key.data, u->key.len), {}, {}, true};
    if (u->histograms) {
        const int j = u->key_count;
        MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
        StringInfoData sensitive;
        initStringInfo(&sensitive);
        append_value(&sensitive, u->values[j], u->isnull[j], u->typlen[j], u->typbyval[j]);
        r.sensitive_key = std::string_view(sensitive.data, sensitive.len);
        r.sensitive_null = u->isnull[j];
        if (!u->isnull[j]) r.sensitive_text = value_text(&u->sensitive_text, u->values[j]);
        MemoryContextSwitchTo(old);
    }
    guarded([&] { count_in_class(&r); });
    if ((++u->rows & 4095) == 0) {
        CHECK_FOR_INTERRUPTS();
        Size held = MemoryContextMemAllocated(u->context, true);
        if (held > s->cache_limit)
            ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                            errmsg("release of policy %s: record suppression's class counts need %zu kB, more than "
                                   "privrisk.memory_limit (%zu kB)",
                                   quote_literal_cstr(u->policy), held / 1024, s->cache_limit / 1024),
                            errhint("Raise privrisk.memory_limit, or suppress by fewer or coarser quasi-identifiers.")));
    }
}

// The classes that violate the constraints, from the counts (the search's decision).
void decide(ScanSuppression* u) {
    BaseClassBuilder builder(1, u->histograms);
    if (u->histograms) {
        std::vector<std::pair<uint64_t, int64_t>> pairs;
        for (std::size_t p = 0; p < u->pair_keys->size(); ++p) pairs.emplace_back((*u->pair_keys)[p], (*u->pair_counts)[p]);
        std::sort(pairs.begin(), pairs.end());  // by class, so the builder numbers classes as they are here
        for (const auto& [pair, count] : pairs) {
            uint32_t c = static_cast<uint32_t>(pair >> 32);
            builder.add(&c, static_cast<uint32_t>(pair), count);
        }
    } else {
        for (std::size_t c = 0; c < u->sizes->size(); ++c) {
            uint32_t code = static_cast<uint32_t>(c);
            builder.add(&code, 0, (*u->sizes)[c]);
        }
    }
    NodeClasses classes = builder.finish();
    std::vector<std::optional<std::string>> names;
    if (u->histograms)
        for (std::string_view n : *u->sensitive_names)
            names.push_back(n.data() ? std::optional<std::string>(std::string(n)) : std::nullopt);
    ClassVerdicts verdicts = violating_classes(classes, names, u->constraints);
    for (std::size_t c = 0; c < verdicts.keep.size(); ++c) u->keep[c] = verdicts.keep[c];
    u->suppressed = verdicts.violating;
    // Over the budget, the violating classes are withheld all the same (privacy
    // first); audit() of the release view reports it and its verdict fails.
    u->within = suppression_within(u->constraints.max_suppression, u->rows, u->suppressed);
}

void count_and_decide(ReleaseScanState* s) {
    ScanSuppression* u = s->suppression;
    for_each_source_row(s, count_row, nullptr);
    ExecClearTuple(s->row_slot);  // the last row counted: no buffer stays pinned
    ResetExprContext(s->css.ss.ps.ps_ExprContext);
    u->keep = static_cast<bool*>(MemoryContextAllocZero(u->context, u->sizes->size() + 1));
    guarded([&] { decide(u); });
    u->decided = true;
    if (!IsParallelWorker()) {
        strlcpy(last_decision.policy, u->policy, sizeof(last_decision.policy));
        last_decision.rows = u->rows;
        last_decision.suppressed = u->suppressed;
        last_decision.max_suppression = u->constraints.max_suppression;
        last_decision.within = u->within;
        last_decision.valid = true;
    }
}


// ---------------------------------------------------------------------------
// Per class, through an index of the source, when the scan itself reads through
// an index (a point, range or join query): a class is counted when a row of it
// is first read. The candidates are the source rows whose indexed
// quasi-identifiers show as the class's values: an index whose leading columns
// are quasi-identifiers released as they are (equality on the raw value) or as
// labels of a tree hierarchy (the leaves under the label) selects every row of
// the class (scan_index.hpp: the same rule as the index paths). Each candidate
// counts when its own class key, computed as the full count computes it, equals
// the class's. Under the query's snapshot, as the full count. k, max_risk and
// l-diversity decide a class from its own rows, so the verdict is the full
// count's; t-closeness and delta-disclosure compare with the whole source and
// are always counted in full. Past a budget of candidates read (a tenth of the
// source's rows, at least 10,000), the scan counts the whole source instead.
// ---------------------------------------------------------------------------

}  // namespace

struct ClassIndex {
    Relation index;
    char* name;
    IndexScanDesc scan;
    TupleTableSlot* slot;      // candidates; also keeps the current row while the whole source is counted
    int nkeys;
    ScanKey keys;
    int* qi;                   // the quasi-identifier of each key column
    RegProcedure* equality;    // of each key column's type in its operator family
    Oid* type;                 // the key column's operator class input type
    Oid* collation;
    MemoryContext context;     // one class's keys, copy and histogram; reset per class
    PgMemoryResource* memory;  // of the decisions (the scan's suppression context)
    FlatIndex* decided;        // class key -> position in keep
    std::pmr::vector<char>* keep;
    int64 read;
    int64 budget;
    int64 classes;
};

namespace {

bool hierarchy_type(Oid type) {
    return type == TEXTOID || type == VARCHAROID || type == INT2OID || type == INT4OID || type == INT8OID;
}

// The quasi-identifier released by source column `attno` in a way an index
// key can select exactly, or -1.
int indexable_qi(const ScanSuppression* u, AttrNumber attno) {
    for (int j = 0; j < u->key_count; ++j)
        if (u->qi_attno[j] == attno && u->qi_access[j].access != ColumnAccess::None) return j;
    return -1;
}

// The btree index with the most leading columns that are such quasi-identifiers
// (at least one), opened; NULL when the source has none.
ClassIndex* open_class_index(ReleaseScanState* s, ScanSuppression* u) {
    TupleDesc desc = RelationGetDescr(s->source);
    Oid best = InvalidOid;
    int best_keys = 0;
    List* indexes = RelationGetIndexList(s->source);
    ListCell* lc;
    foreach (lc, indexes) {
        Relation index = index_open(lfirst_oid(lc), AccessShareLock);
        Form_pg_index form = index->rd_index;
        int n = 0;
        if (index->rd_rel->relam == BTREE_AM_OID && form->indisvalid && form->indisready && form->indislive &&
            heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, nullptr)) {
            for (int c = 0; c < form->indnkeyatts; ++c) {
                const AttrNumber attno = form->indkey.values[c];
                if (attno <= 0) break;  // an expression
                const int j = indexable_qi(u, attno);
                if (j < 0) break;
                const Oid raw = TupleDescAttr(desc, attno - 1)->atttypid;
                const Oid input = index->rd_opcintype[c];
                if (raw != input && !(raw == VARCHAROID && input == TEXTOID)) break;
                if (u->qi_access[j].access == ColumnAccess::Label && !hierarchy_type(raw)) break;
                ++n;
            }
        }
        index_close(index, AccessShareLock);
        if (n > best_keys) {
            best = lfirst_oid(lc);
            best_keys = n;
        }
    }
    list_free(indexes);
    if (!OidIsValid(best)) return nullptr;

    auto* ci = static_cast<ClassIndex*>(MemoryContextAllocZero(u->context, sizeof(ClassIndex)));
    ci->index = index_open(best, AccessShareLock);  // kept until the scan ends (end_suppression)
    ci->name = pstrdup(RelationGetRelationName(ci->index));
    ci->nkeys = best_keys;
    ci->keys = static_cast<ScanKey>(palloc0(sizeof(ScanKeyData) * best_keys));
    ci->qi = static_cast<int*>(palloc0(sizeof(int) * best_keys));
    ci->equality = static_cast<RegProcedure*>(palloc0(sizeof(RegProcedure) * best_keys));
    ci->type = static_cast<Oid*>(palloc0(sizeof(Oid) * best_keys));
    ci->collation = static_cast<Oid*>(palloc0(sizeof(Oid) * best_keys));
    for (int c = 0; c < best_keys; ++c) {
        ci->qi[c] = indexable_qi(u, ci->index->rd_index->indkey.values[c]);
        ci->type[c] = ci->index->rd_opcintype[c];
        Oid op = get_opfamily_member(ci->index->rd_opfamily[c], ci->type[c], ci->type[c], BTEqualStrategyNumber);
        if (!OidIsValid(op)) {
            index_close(ci->index, AccessShareLock);
            return nullptr;
        }
        ci->equality[c] = get_opcode(op);
        ci->collation[c] = ci->index->rd_indcollation[c];
    }
    EState* estate = s->css.ss.ps.state;
    ci->slot = ExecInitExtraTupleSlot(estate, desc, table_slot_callbacks(s->source));
    ci->context = AllocSetContextCreate(u->context, "privrisk suppression class", ALLOCSET_SMALL_SIZES);
    ci->memory = u->memory;
    guarded([&] {
        ci->decided = construct_in<FlatIndex>(u->context, u->memory);
        ci->keep = construct_in<std::pmr::vector<char>>(u->context, u->memory);
    });
    const double tuples = s->source->rd_rel->reltuples;
    ci->budget = std::max<int64>(10000, tuples > 0 ? static_cast<int64>(tuples / 10) : 0);
    return ci;
}

void close_class_index(ScanSuppression* u) {
    ClassIndex* ci = u->by_class;
    if (!ci) return;
    if (ci->scan) index_endscan(ci->scan);
    ci->scan = nullptr;
    if (ci->index) index_close(ci->index, AccessShareLock);
    ci->index = nullptr;
    u->by_class = nullptr;
}

// The keys that select the current row's class (its quasi-identifiers as they
// are in row_slot and as released in u->values); false when none can (a NULL,
// a label whose leaves cannot be listed).
bool class_keys(ReleaseScanState* s, ScanSuppression* u, ClassIndex* ci) {
    for (int c = 0; c < ci->nkeys; ++c) {
        const int j = ci->qi[c];
        int flags = 0;
        Datum value;
        if (u->qi_access[j].access == ColumnAccess::AsIs) {
            bool null;
            value = slot_getattr(s->row_slot, u->qi_attno[j], &null);
            if (null) return false;
        } else {
            if (u->isnull[j]) return false;
            const IndexableColumn& access = u->qi_access[j];
            Oid raw = TupleDescAttr(RelationGetDescr(s->source), access.attno - 1)->atttypid;
            Datum label = u->values[j];
            int n = 0;
            bool listed = false;
            guarded([&] { listed = label_leaves(cached_hierarchy(access.hierarchy), access.level, label, false, raw, &value, &n); });
            if (!listed || n == 0) return false;
            flags = SK_SEARCHARRAY;
        }
        ScanKeyEntryInitialize(&ci->keys[c], flags, c + 1, BTEqualStrategyNumber, ci->type[c], ci->collation[c],
                               ci->equality[c], value);
    }
    return true;
}

struct ClassCount {
    ScanSuppression* u;
    int64 size;
    FlatIndex* sensitive_ids;                 // with histograms
    std::pmr::vector<int64_t>* counts;
    std::pmr::vector<std::string_view>* names;  // data() NULL for ⊥
    bool keep;
};

// Adds a candidate of the class to its histogram. May throw; behind guarded().
void count_sensitive(ClassCount* c, std::string_view key, std::string_view text, bool null) {
    bool added;
    uint32_t id = c->sensitive_ids->find_or_add(key, &added);
    if (added) {
        std::string_view name;
        if (!null) {
            char* copy = static_cast<char*>(c->counts->get_allocator().resource()->allocate(text.size() + 1, 1));
            memcpy(copy, text.data(), text.size());
            name = std::string_view(copy, text.size());
        }
        c->names->push_back(name);
        c->counts->push_back(0);
    }
    ++(*c->counts)[id];
}

// The class's verdict from its own counts (the full count's decide(), for one class).
void decide_class(ClassCount* c) {
    ScanSuppression* u = c->u;
    BaseClassBuilder builder(1, u->histograms);
    uint32_t code = 0;
    if (u->histograms)
        for (std::size_t v = 0; v < c->counts->size(); ++v) builder.add(&code, static_cast<uint32_t>(v), (*c->counts)[v]);
    else
        builder.add(&code, 0, c->size);
    NodeClasses classes = builder.finish();
    std::vector<std::optional<std::string>> names;
    if (u->histograms)
        for (std::string_view n : *c->names) names.push_back(n.data() ? std::optional<std::string>(std::string(n)) : std::nullopt);
    c->keep = violating_classes(classes, names, u->constraints).keep[0];
}

// Whether a class of `size` rows so far is kept whatever rows it has besides:
// k and max_risk ask for enough rows, and more rows never undo that.
bool kept_already(const ScanSuppression* u, int64 size) {
    const Constraints& q = u->constraints;
    if (!u->decided_early) return false;
    if (q.k && size < *q.k) return false;
    if (q.max_risk && strictly_below(*q.max_risk, 1.0 / double(size))) return false;
    return true;
}

// Counts the class of the current row (whose key is in u->key) through the
// class index, until its verdict is known (kept_already); false when it cannot
// (the keys, the budget): the whole source decides then. Leaves u->key and
// u->values as the last candidate left them.
bool count_class(ReleaseScanState* s, ScanSuppression* u, ExprContext* econtext, bool* keep) {
    ClassIndex* ci = u->by_class;
    MemoryContextReset(ci->context);
    MemoryContext old = MemoryContextSwitchTo(ci->context);
    const int length = u->key.len;
    char* key = static_cast<char*>(palloc(length + 1));
    memcpy(key, u->key.data, length);
    const bool keyed = class_keys(s, u, ci);
    MemoryContextSwitchTo(old);
    if (!keyed) return false;
    ClassCount count{u, 0, nullptr, nullptr, nullptr, false};
    if (u->histograms) {
        MemoryContext context = ci->context;
        guarded([&] {
            auto* memory = construct_in<PgMemoryResource>(context, context);
            count.sensitive_ids = construct_in<FlatIndex>(context, memory);
            count.counts = construct_in<std::pmr::vector<int64_t>>(context, memory);
            count.names = construct_in<std::pmr::vector<std::string_view>>(context, memory);
        });
    }
    if (!ci->scan) ci->scan = index_beginscan(s->source, ci->index, s->css.ss.ps.state->es_snapshot, ci->nkeys, 0);
    index_rescan(ci->scan, ci->keys, ci->nkeys, nullptr, 0);
    TupleTableSlot* current = s->row_slot;
    s->row_slot = ci->slot;
    bool within = true;
    while (index_getnext_slot(ci->scan, ForwardScanDirection, ci->slot)) {
        if (++ci->read > ci->budget) {
            within = false;
            break;
        }
        ResetExprContext(econtext);
        row_key(s, u, econtext);
        if (u->key.len != length || memcmp(u->key.data, key, length) != 0) continue;
        ++count.size;
        if (kept_already(u, count.size)) {
            count.keep = true;
            break;
        }
        if (u->histograms) {
            const int j = u->key_count;
            MemoryContext previous = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
            StringInfoData sensitive;
            initStringInfo(&sensitive);
            append_value(&sensitive, u->values[j], u->isnull[j], u->typlen[j], u->typbyval[j]);
            std::string_view text;
            if (!u->isnull[j]) text = value_text(&u->sensitive_text, u->values[j]);
            MemoryContextSwitchTo(previous);
            const bool null = u->isnull[j];
            guarded([&] { count_sensitive(&count, std::string_view(sensitive.data, sensitive.len), text, null); });
        }
        if ((ci->read & 4095) == 0) CHECK_FOR_INTERRUPTS();
    }
    ExecClearTuple(ci->slot);
    s->row_slot = current;
    ResetExprContext(econtext);
    if (!within || count.size == 0) return false;  // the row itself is always a candidate
    if (!count.keep) guarded([&] { decide_class(&count); });
    ++ci->classes;
    bool added;
    uint32_t id = 0;
    guarded([&] {
        id = ci->decided->find_or_add(std::string_view(key, length), &added);
        if (added) ci->keep->push_back(count.keep);
    });
    *keep = count.keep;
    return true;
}

}  // namespace

ScanSuppression* begin_suppression(ReleaseScanState* s, const Policy& policy, const std::vector<ReleasedColumn>& shape,
                                   const std::vector<int>& rule_condition, std::vector<char>& condition_used,
                                   bool for_coordinator) {
    std::optional<SuppressionRule> rule = find_suppression(policy.name);
    if (!rule) return nullptr;
    if (for_coordinator)
        fail(ErrorKind::InvalidParameter,
             "policy " + quote_value(policy.name) +
                 " suppresses records: its release cannot be read over shards (each shard would decide from its "
                 "own rows only)");
    const char* json_text = rule->constraints.c_str();
    Datum json = pg_call([&] { return DirectFunctionCall1(jsonb_in, CStringGetDatum(json_text)); });
    Constraints q = parse_constraints(json_option_texts(json));

    auto* u = static_cast<ScanSuppression*>(pg_call([] { return palloc0(sizeof(ScanSuppression)); }));
    u->policy = pg_call([&] { return pstrdup(policy.name.c_str()); });
    u->constraints = q;
    std::string description;
    for (const std::string& c : rule->quasi_identifiers) description += (description.empty() ? "" : ", ") + c;
    description = "classes of (" + description + ") " + rule->constraints;
    u->description = pg_call([&] { return pstrdup(description.c_str()); });
    u->key_count = static_cast<int>(rule->quasi_identifiers.size());
    u->has_sensitive = rule->sensitive && q.needs_histograms();
    u->histograms = u->has_sensitive;
    const int n = u->key_count + u->has_sensitive;
    pg_call([&] {
        u->keys = static_cast<ReleasedOutput*>(palloc0(sizeof(ReleasedOutput) * n));
        u->key_outputs = static_cast<ReleasedOutput**>(palloc0(sizeof(ReleasedOutput*) * n));
        u->typlen = static_cast<int16*>(palloc0(sizeof(int16) * n));
        u->typbyval = static_cast<bool*>(palloc0(sizeof(bool) * n));
        u->values = static_cast<Datum*>(palloc0(sizeof(Datum) * n));
        u->isnull = static_cast<bool*>(palloc0(sizeof(bool) * n));
        u->qi_attno = static_cast<AttrNumber*>(palloc0(sizeof(AttrNumber) * n));
        initStringInfo(&u->key);
    });
    // IndexableColumn holds strings: constructed in place, never destroyed (the scan's memory goes at its end).
    u->qi_access = static_cast<IndexableColumn*>(pg_call([&] { return palloc0(sizeof(IndexableColumn) * n); }));
    for (int j = 0; j < n; ++j) new (&u->qi_access[j]) IndexableColumn{};
    u->per_class_decidable = !q.t && !q.delta && !q.c;
    u->decided_early = u->per_class_decidable && !q.needs_histograms() && (q.k || q.max_risk);
    for (int j = 0; j < n; ++j) {
        const std::string& name = j < u->key_count ? rule->quasi_identifiers[j] : *rule->sensitive;
        auto col = std::find_if(shape.begin(), shape.end(), [&](const ReleasedColumn& c) { return c.name == name; });
        if (col == shape.end())
            fail(ErrorKind::UndefinedObject,
                 "the suppression rule of policy " + quote_value(policy.name) + " names column " + quote_value(name) +
                     ", which its source no longer has; the policy's owner sets the rule anew "
                     "with privrisk.set_suppression");
        init_output(s, u->keys[j], j, *col, policy, rule_condition, condition_used);
        u->key_outputs[j] = &u->keys[j];
        if (j < u->key_count) {
            u->qi_attno[j] = col->attno;
            u->qi_access[j] = indexable_column(policy, *col);
        }
        Oid type = col->type;
        pg_call([&] {
            get_typlenbyval(type, &u->typlen[j], &u->typbyval[j]);
            if (j == u->key_count) init_value_text(&u->sensitive_text, type, CurrentMemoryContext);
        });
    }
    pg_call([&] {
        u->context = AllocSetContextCreate(CurrentMemoryContext, "privrisk suppression counts", ALLOCSET_DEFAULT_SIZES);
    });
    u->memory = construct_in<PgMemoryResource>(u->context, u->context);
    u->classes = construct_in<FlatIndex>(u->context, u->memory);
    u->sizes = construct_in<std::pmr::vector<int64_t>>(u->context, u->memory);
    u->pairs = construct_in<FlatIndex>(u->context, u->memory);
    u->pair_keys = construct_in<std::pmr::vector<uint64_t>>(u->context, u->memory);
    u->pair_counts = construct_in<std::pmr::vector<int64_t>>(u->context, u->memory);
    u->sensitive_ids = construct_in<FlatIndex>(u->context, u->memory);
    u->sensitive_names = construct_in<std::pmr::vector<std::string_view>>(u->context, u->memory);
    return u;
}

void prepare_suppression(ReleaseScanState* s) {
    ScanSuppression* u = s->suppression;
    if (u->decided || u->by_class) return;
    if (s->index_access && u->per_class_decidable && !u->by_class_tried && release_suppression_by_class()) {
        u->by_class_tried = true;
        u->by_class = open_class_index(s, u);
        if (u->by_class) return;
    }
    count_and_decide(s);
}

bool suppression_keeps_row(ReleaseScanState* s, ExprContext* econtext) {
    ScanSuppression* u = s->suppression;
    row_key(s, u, econtext);
    if (ClassIndex* ci = u->by_class) {
        uint32_t known = ci->decided->find(std::string_view(u->key.data, u->key.len));
        if (known != FlatIndex::kAbsent) return (*ci->keep)[known];
        bool keep;
        const bool counted = count_class(s, u, econtext, &keep);
        if (!counted) {
            // The whole source decides, from here on: the current row waits in the class
            // index's slot while the source is read into the scan's own.
            ExecCopySlot(ci->slot, s->row_slot);
            count_and_decide(s);
            ExecCopySlot(s->row_slot, ci->slot);
            ExecClearTuple(ci->slot);
            close_class_index(u);
        }
        ResetExprContext(econtext);
        row_key(s, u, econtext);  // the current row's conditions and key again
        if (counted) return keep;
    }
    uint32_t id = u->classes->find(std::string_view(u->key.data, u->key.len));
    // A row the count did not see cannot come from the same snapshot; withheld all the same.
    return id != FlatIndex::kAbsent && u->keep[id];
}

// The last decision of this backend for `policy`, if any (release_suppression()).
bool last_suppression_decision(const char* policy, int64* rows, int64* suppressed, double* max_suppression,
                               bool* within) {
    if (!last_decision.valid || strcmp(last_decision.policy, policy) != 0) return false;
    *rows = last_decision.rows;
    *suppressed = last_decision.suppressed;
    *max_suppression = last_decision.max_suppression;
    *within = last_decision.within;
    return true;
}

void forget_suppression_decision() { last_decision.valid = false; }

const char* suppression_description(const ScanSuppression* u) { return u->description; }

void define_suppression_setting() {
    DefineCustomBoolVariable("privrisk.release_suppression_by_class",
                             "Decides record suppression class by class through an index on a read through an index.",
                             "Off: such a read counts the whole source first (for tests and measurements).",
                             &by_class_enabled, true, PGC_USERSET, GUC_NOT_IN_SAMPLE, nullptr, nullptr, nullptr);
}

bool release_suppression_by_class() { return by_class_enabled; }

void end_suppression(ReleaseScanState* s) {
    if (s->suppression) close_class_index(s->suppression);
}

bool suppression_by_class(const ScanSuppression* u, const char** index, int64* classes, int64* read) {
    if (!u->by_class) return false;
    *index = u->by_class->name;
    *classes = u->by_class->classes;
    *read = u->by_class->read;
    return true;
}

}  // namespace privrisk::pg
