// Record suppression class by class (scan_suppression_state.hpp; docs/release.md,
// "Record suppression"), when the scan itself reads through an index (a point,
// range or join query): a class is counted when a row of it is first read. The
// candidates are the source rows whose indexed quasi-identifiers show as the
// class's values: an index whose leading columns are quasi-identifiers released
// as they are (equality on the raw value) or as labels of a tree hierarchy (the
// leaves under the label) selects every row of the class (scan_index.hpp: the
// same rule as the index paths). Each candidate counts when its own class key,
// computed as the full count computes it, equals the class's, under the query's
// snapshot. k, max_risk and l-diversity decide a class from its own rows, so the
// verdict is the full count's; t-closeness, delta-disclosure and (c,k)-safety
// compare with the whole source and are always counted in full. Past a budget of
// candidates read (a tenth of the source's rows, at least 10,000), the scan
// counts the whole source instead.
//
// Per-row code here holds no C++ object with a destructor: what may throw runs behind guarded().
#include "release/scan_suppression_state.hpp"

#include <algorithm>

#include "hierarchy/hierarchy_catalog.hpp"
#include "measures/measures.hpp"
#include "search/class_suppression.hpp"

extern "C" {
#include "access/genam.h"
#include "access/nbtree.h"
#include "catalog/index.h"
#include "catalog/pg_am_d.h"
#include "utils/lsyscache.h"
#include "utils/snapmgr.h"
}

namespace privrisk::pg {

struct ClassIndex {
    Relation index;
    char* name;
    IndexScanDesc scan;
    TupleTableSlot* slot;  // candidates; also keeps the current row while the whole source is counted
    int nkeys;
    ScanKey keys;
    int* qi;                 // the quasi-identifier of each key column
    RegProcedure* equality;  // of each key column's type in its operator family
    Oid* type;               // the key column's operator class input type
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

bool by_class_enabled = true;

// The quasi-identifier released by source column `attno` in a way an index
// key can select exactly, or -1.
int indexable_qi(const ScanSuppression* u, AttrNumber attno) {
    for (int j = 0; j < u->key_count; ++j)
        if (u->qi_attno[j] == attno && u->qi_access[j].access != ColumnAccess::None) return j;
    return -1;
}

}  // namespace

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
        // As the planner (get_relation_info): an index built over broken HOT chains
        // (indcheckxmin) holds each chain under its newest value only, so a snapshot
        // older than the index may not read through it.
        const bool too_new =
            form->indcheckxmin &&
            !TransactionIdPrecedes(HeapTupleHeaderGetXmin(index->rd_indextuple->t_data), TransactionXmin);
        if (index->rd_rel->relam == BTREE_AM_OID && form->indisvalid && form->indisready && form->indislive &&
            !too_new && heap_attisnull(index->rd_indextuple, Anum_pg_index_indpred, nullptr)) {
            for (int c = 0; c < form->indnkeyatts; ++c) {
                const AttrNumber attno = form->indkey.values[c];
                if (attno <= 0) break;  // an expression
                const int j = indexable_qi(u, attno);
                if (j < 0) break;
                const Oid raw = TupleDescAttr(desc, attno - 1)->atttypid;
                const Oid input = index->rd_opcintype[c];
                // (A label's raw type is one indexable_column allows: text, varchar, int2/4/8.)
                if (raw != input && !(raw == VARCHAROID && input == TEXTOID)) break;
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

namespace {

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
            guarded([&] {
                listed = label_leaves(cached_hierarchy(access.hierarchy), access.level, label, false, raw, &value, &n);
            });
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
    FlatIndex* sensitive_ids;  // with histograms
    std::pmr::vector<int64_t>* counts;
    std::pmr::vector<std::string_view>* names;  // data() NULL for ⊥
    bool keep;
};

// Adds a candidate of the class to its histogram. May throw; behind guarded().
void count_sensitive(ClassCount* c, const SensitiveValue& v) {
    bool added;
    uint32_t id = intern_sensitive(c->sensitive_ids, c->names, v, &added);
    if (added) c->counts->push_back(0);
    ++(*c->counts)[id];
}

// The class's verdict from its own counts (the full count's decide(), for one class).
void decide_class(ClassCount* c) {
    ScanSuppression* u = c->u;
    BaseClassBuilder builder(1, u->histograms);
    uint32_t code = 0;
    if (u->histograms)
        for (std::size_t v = 0; v < c->counts->size(); ++v)
            builder.add(&code, static_cast<uint32_t>(v), (*c->counts)[v]);
    else builder.add(&code, 0, c->size);
    NodeClasses classes = builder.finish();
    std::vector<std::optional<std::string>> names;
    if (u->histograms)
        for (std::string_view n : *c->names)
            names.push_back(n.data() ? std::optional<std::string>(std::string(n)) : std::nullopt);
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

}  // namespace

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
            const SensitiveValue v = row_sensitive(u, econtext);
            guarded([&] { count_sensitive(&count, v); });
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

bool class_counted(const ScanSuppression* u, bool* keep) {
    const ClassIndex* ci = u->by_class;
    uint32_t known = ci->decided->find(std::string_view(u->key.data, u->key.len));
    if (known == FlatIndex::kAbsent) return false;
    *keep = (*ci->keep)[known];
    return true;
}

void count_whole_source_instead(ReleaseScanState* s, ScanSuppression* u) {
    // The current row waits in the class index's slot while the source is read into the scan's own.
    ClassIndex* ci = u->by_class;
    ExecCopySlot(ci->slot, s->row_slot);
    count_and_decide(s);
    ExecCopySlot(s->row_slot, ci->slot);
    ExecClearTuple(ci->slot);
    close_class_index(u);
}

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
