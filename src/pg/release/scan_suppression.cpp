// Record suppression in a release scan (scan_suppression.hpp; docs/release.md,
// "Record suppression").
//
// The decision is made once per scan, at its first row, from the whole source
// under the query's snapshot (es_snapshot): never from the query's quals (they
// run above the scan, on released rows), never from numbers stored earlier. A
// parallel worker makes it again from the same snapshot, so leader and workers
// withhold the same classes. A rescan keeps it (same snapshot). EXPLAIN
// without ANALYZE runs no row, so counts nothing. A read through an index may
// decide class by class instead (suppression_by_class.cpp).
//
// The per-row code here (count_source_row, row_class) holds no C++ object with a
// destructor: what may throw (the counts growing, the decision) runs behind guarded().
#include "release/scan_suppression_state.hpp"

#include <algorithm>

#include "release/suppression_catalog.hpp"
#include "common/digest.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "search/class_suppression.hpp"
#include "common/args.hpp"

extern "C" {
#include "access/tableam.h"
#include "utils/jsonb.h"
#include "utils/lsyscache.h"
}

namespace privrisk::pg {
namespace {

// What the last decision of this backend's leader said, for release_suppression()
// (while `valid`), and the classes it found: the next count of the same policy
// makes its table that large at once (growing it, each larger table's memory is
// new to the process, and the first touch of new memory is much of a count's cost).
struct LastDecision {
    char policy[1024];
    int64 rows, suppressed;
    double max_suppression;
    bool within;
    bool valid;
    std::size_t classes;  // kept when the decision is forgotten: only a size
} last_decision;

}  // namespace

std::size_t classes_hint(const char* policy) {
    return strcmp(last_decision.policy, policy) == 0 ? last_decision.classes : 0;
}

void presize_counts(ReleaseScanState* s, ScanSuppression* u, double share, std::size_t classes) {
    // The record holds a row's class in 4 bytes: room for the rows the statistics
    // expect (`share` of them), within half of privrisk.memory_limit.
    const double rows = s->source->rd_rel->reltuples;
    const std::size_t record =
        rows > 0 ? std::min<double>(rows * share * 1.05 + 1024, s->cache_limit / 2 / sizeof(uint32_t)) : 0;
    guarded([&] {
        if (u->recording && record > 0) u->sequence->reserve(record);
        if (classes > 0 && classes * 64 < s->cache_limit / 2) u->classes->reserve(classes);
    });
}

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

// The released values of the row's quasi-identifiers (and sensitive column), in
// u->values. Runs in the per-tuple memory of `econtext`.
void row_values(ReleaseScanState* s, ScanSuppression* u, ExprContext* econtext) {
    slot_getsomeattrs(s->row_slot, s->last_attno);
    econtext->ecxt_scantuple = s->row_slot;  // conditions read the original row
    MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
    s->in_rules = true;
    evaluate_row_conditions(s, econtext);
    release_values(s, u->key_outputs, u->key_count + u->has_sensitive, u->values, u->isnull);
    s->in_rules = false;
    // Detoasted here, where an ERROR may be raised: class_code reads them behind guarded().
    for (int j = 0; j < u->key_count; ++j)
        if (u->typlen[j] == -1 && !u->isnull[j])
            u->values[j] = PointerGetDatum(
                pg_detoast_datum_packed(reinterpret_cast<struct varlena*>(DatumGetPointer(u->values[j]))));
    MemoryContextSwitchTo(old);
}

void row_key(ReleaseScanState* s, ScanSuppression* u, ExprContext* econtext) {
    row_values(s, u, econtext);
    MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
    resetStringInfo(&u->key);
    for (int j = 0; j < u->key_count; ++j)
        append_value(&u->key, u->values[j], u->isnull[j], u->typlen[j], u->typbyval[j]);
    MemoryContextSwitchTo(old);
}

namespace {

// A released value's bytes (not null; a varlena detoasted by row_values).
std::string_view value_bytes(Datum value, int16 typlen, bool byval, const Datum* holder) {
    if (byval) return std::string_view(reinterpret_cast<const char*>(holder), sizeof(Datum));
    if (typlen == -1) {
        const auto* v = reinterpret_cast<const struct varlena*>(DatumGetPointer(value));
        return std::string_view(VARDATA_ANY(v), VARSIZE_ANY_EXHDR(v));
    }
    if (typlen == -2) return std::string_view(DatumGetCString(value));
    return std::string_view(DatumGetPointer(value), typlen);
}

}  // namespace

int class_code(ScanSuppression* u, bool add) {
    char* out = u->coded;
    for (int j = 0; j < u->key_count; ++j) {
        // 0 for NULL, else 1 + the value's id among the column's values (its bytes alone:
        // a column's values have one type, so equal bytes are equal values).
        uint32_t code = 0;
        if (!u->isnull[j]) {
            std::string_view value = value_bytes(u->values[j], u->typlen[j], u->typbyval[j], &u->values[j]);
            uint32_t id = add ? u->value_codes[j]->find_or_add(value) : u->value_codes[j]->find(value);
            if (id == FlatIndex::kAbsent) return -1;
            code = id + 1;
        }
        // A varint: no code's bytes begin another's, so distinct classes have distinct keys.
        for (; code >= 0x80; code >>= 7) *out++ = static_cast<char>(code | 0x80);
        *out++ = static_cast<char>(code);
    }
    return static_cast<int>(out - u->coded);
}

SensitiveValue row_sensitive(ScanSuppression* u, ExprContext* econtext) {
    const int j = u->key_count;
    MemoryContext old = MemoryContextSwitchTo(econtext->ecxt_per_tuple_memory);
    StringInfoData key;
    initStringInfo(&key);
    append_value(&key, u->values[j], u->isnull[j], u->typlen[j], u->typbyval[j]);
    SensitiveValue v{std::string_view(key.data, key.len), {}, u->isnull[j]};
    if (!v.null) v.text = value_text(&u->sensitive_text, u->values[j]);
    MemoryContextSwitchTo(old);
    return v;
}

uint32_t intern_sensitive(FlatIndex* ids, std::pmr::vector<std::string_view>* names, const SensitiveValue& v,
                          bool* added) {
    uint32_t id = ids->find_or_add(v.key, added);
    if (*added) {
        std::string_view name;
        if (!v.null) {
            char* copy = static_cast<char*>(names->get_allocator().resource()->allocate(v.text.size() + 1, 1));
            memcpy(copy, v.text.data(), v.text.size());
            name = std::string_view(copy, v.text.size());
        }
        names->push_back(name);
    }
    return id;
}

namespace {

struct CountRequest {
    ScanSuppression* u;
    SensitiveValue sensitive;  // with histograms
};

// Adds the row (whose values row_values read) to its class (and its class's histogram).
// May throw; behind guarded().
void count_in_class(CountRequest* r) {
    ScanSuppression* u = r->u;
    bool added;
    uint32_t id = u->classes->find_or_add(std::string_view(u->coded, class_code(u, true)), &added);
    if (added) u->sizes->push_back(0);
    ++(*u->sizes)[id];
    if (u->recording) u->sequence->push_back(id);
    if (!u->histograms) return;
    uint32_t sensitive = intern_sensitive(u->sensitive_ids, u->sensitive_names, r->sensitive, &added);
    uint64_t pair = uint64_t(id) << 32 | sensitive;
    uint32_t p = u->pairs->find_or_add(std::string_view(reinterpret_cast<const char*>(&pair), sizeof(pair)), &added);
    if (added) {
        u->pair_keys->push_back(pair);
        u->pair_counts->push_back(0);
    }
    ++(*u->pair_counts)[p];
}

}  // namespace

// The classes of the rows batched by queue_class. May throw; behind guarded().
void count_class_batch(ScanSuppression* u) {
    for (int b = 0; b < u->batched; ++b) {
        bool added;
        uint64_t spilled;
        std::string_view key(u->batch_keys + b * u->coded_room, u->batch_lengths[b]);
        // Counted in the class's slot, fetched already: `sizes` gets it at the end (drain_class_counts).
        uint32_t id = u->classes->count_hashed(key, u->batch_hashes[b], 1, &added, &spilled);
        if (added) u->sizes->push_back(0);
        if (spilled) (*u->sizes)[id] += static_cast<int64_t>(spilled);
        if (u->recording) u->sequence->push_back(id);
    }
    u->batched = 0;
}

void drain_class_counts(ScanSuppression* u) {
    u->classes->drain_counters([&](uint32_t id, uint32_t n) { (*u->sizes)[id] += n; });
}

namespace {

// Adds the row (whose values row_values read) to its class: later, with a batch (the
// table of classes outgrows the cache, and a row's lookup waiting for memory
// was most of what counting cost). May throw; behind guarded().
constexpr int kClassBatch = 16;
void queue_class(ScanSuppression* u) {
    const int length = class_code(u, true);
    char* key = u->batch_keys + u->batched * u->coded_room;
    memcpy(key, u->coded, length);
    const uint64_t hash = FlatIndex::hash(std::string_view(key, length));
    u->classes->prefetch(hash);
    u->batch_lengths[u->batched] = length;
    u->batch_hashes[u->batched] = hash;
    if (++u->batched == kClassBatch) count_class_batch(u);
}

// The row's block in the recorded sequence. May throw; behind guarded().
void record_block(ScanSuppression* u, BlockNumber block) {
    if (!u->blocks->empty() && (u->blocks->back() >> 32) == block) ++u->blocks->back();
    else u->blocks->push_back(uint64_t(block) << 32 | 1);
}

}  // namespace

void forget_sequence(ScanSuppression* u) {
    u->recording = false;
    u->sequence->clear();
    u->sequence->shrink_to_fit();
    u->blocks->clear();
    u->blocks->shrink_to_fit();
    u->run_starts->clear();
    u->run_starts->shrink_to_fit();
}

bool record_whole(const ScanSuppression* u) {
    return u->recording && static_cast<int64>(u->sequence->size()) == u->rows;
}

char* count_memory_message(const ScanSuppression* u, Size held, Size limit) {
    return psprintf(
        "release of policy %s: record suppression's class counts need %zu kB, more than "
        "privrisk.memory_limit (%zu kB)",
        quote_literal_cstr(u->policy), held / 1024, limit / 1024);
}

void check_count_memory(ReleaseScanState* s, ScanSuppression* u) {
    Size held = MemoryContextMemAllocated(u->context, true);
    if (held > s->cache_limit && u->recording) {
        guarded([&] { forget_sequence(u); });
        held = MemoryContextMemAllocated(u->context, true);
    }
    if (held > s->cache_limit)
        ereport(ERROR, (errcode(ERRCODE_PROGRAM_LIMIT_EXCEEDED),
                        errmsg("%s", count_memory_message(u, held, s->cache_limit)), errhint("%s", kCountMemoryHint)));
}

void count_source_row(ReleaseScanState* s, void*) {
    ScanSuppression* u = s->suppression;
    ExprContext* econtext = s->css.ss.ps.ps_ExprContext;
    ResetExprContext(econtext);
    row_values(s, u, econtext);
    // Only a heap's own slot is recorded (a partition's row mapped into a virtual slot has no TID).
    const BlockNumber block = u->recording ? ItemPointerGetBlockNumber(&s->row_slot->tts_tid) : InvalidBlockNumber;
    if (u->histograms) {
        CountRequest r{u, row_sensitive(u, econtext)};
        guarded([&] {
            if (u->recording) record_block(u, block);
            count_in_class(&r);
        });
    } else {
        guarded([&] {
            if (u->recording) record_block(u, block);
            queue_class(u);
        });
    }
    if ((++u->rows & 4095) == 0) {
        CHECK_FOR_INTERRUPTS();
        check_count_memory(s, u);
    }
}

namespace {

// The classes that violate the constraints, from the counts (the search's decision).
void decide(ScanSuppression* u) {
    BaseClassBuilder builder(1, u->histograms);
    if (u->histograms) {
        std::vector<std::pair<uint64_t, int64_t>> pairs;
        for (std::size_t p = 0; p < u->pair_keys->size(); ++p)
            pairs.emplace_back((*u->pair_keys)[p], (*u->pair_counts)[p]);
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

// The kept classes by coded key, for the rows read after whose class is not
// replayed: looked up among the kept classes only, most rows are in a few large
// classes, whose entries stay in the cache. Made at the first such row (a
// replayed read needs none). May throw; behind guarded().
void index_kept_classes(ScanSuppression* u) {
    u->classes->for_each_key([&](uint32_t id, std::string_view key) {
        if (u->keep[id]) u->kept->find_or_add(key);
    });
    u->kept_indexed = true;
}

}  // namespace

void count_and_decide(ReleaseScanState* s) {
    ScanSuppression* u = s->suppression;
    // Recorded when the rows released are read next by a serial scan of the same heap
    // (not begun yet: a parallel one is set up before, an index read is another order).
    u->recording = !s->by_tables && !s->index_access && !s->scan && s->source->rd_tableam == GetHeapamTableAmRoutine();
    presize_counts(s, u, 1.0, u->classes_hint = classes_hint(u->policy));
    if (!count_in_parallel(s)) for_each_source_row(s, count_source_row, nullptr);
    ExecClearTuple(s->row_slot);  // the last row counted: no buffer stays pinned
    ResetExprContext(s->css.ss.ps.ps_ExprContext);
    guarded([&] {
        count_class_batch(u);  // the last rows: their classes count before the verdicts are sized
        drain_class_counts(u);
    });
    u->keep = static_cast<bool*>(MemoryContextAllocZero(u->context, u->sizes->size() + 1));
    guarded([&] { decide(u); });
    check_count_memory(s, u);  // the last rows
    u->decided = true;
    u->replayable = record_whole(u);
    u->recording = false;
    rescan_suppression(s);
    if (!IsParallelWorker()) {
        strlcpy(last_decision.policy, u->policy, sizeof(last_decision.policy));
        last_decision.classes = u->classes->size();
        last_decision.rows = u->rows;
        last_decision.suppressed = u->suppressed;
        last_decision.max_suppression = u->constraints.max_suppression;
        last_decision.within = u->within;
        last_decision.valid = true;
    }
}

namespace {

// What makes a column's released values what they are, for the fingerprint of a
// count: processes that count one source together must release it alike.
void add_to_fingerprint(Digest* d, const ReleasedColumn& col, const Policy& policy, const ReleasedOutput& out) {
    d->add(std::to_string(col.attno));
    d->add(std::to_string(col.type));
    d->add(col.hierarchy);
    d->add(std::to_string(col.height));
    if (!col.hierarchy.empty()) {  // its definition, not only its version (0 in a catalog not updated yet)
        int64 version = 0;
        std::string digest;
        cached_hierarchy(col.hierarchy, &version, &digest);
        d->add(digest);
    }
    for (int r : col.rules) {
        const PolicyRule& rule = policy.rules[r];
        d->add(disclosure_op_name(rule.op));
        d->add(std::to_string(rule.level));
        d->add(rule.hierarchy);
        d->add(std::to_string(rule.hierarchy_version));
        d->add(rule.condition_tree);
    }
    if (out.pseudonymizer)  // the key by a pseudonym it gives (never the key's own bytes)
        d->add(pseudonym(out.pseudonymizer, "privrisk count fingerprint"));
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
        u->coded_room = 5 * n;  // a varint of a 32-bit code takes 5 bytes at most
        u->coded = static_cast<char*>(palloc0(u->coded_room + 1));
        u->value_codes = static_cast<FlatIndex**>(palloc0(sizeof(FlatIndex*) * n));
        u->batch_keys = static_cast<char*>(palloc(u->coded_room * kClassBatch + 1));
        u->batch_lengths = static_cast<int*>(palloc0(sizeof(int) * kClassBatch));
        u->batch_hashes = static_cast<uint64_t*>(palloc0(sizeof(uint64_t) * kClassBatch));
        initStringInfo(&u->key);
    });
    // IndexableColumn holds strings: constructed in place, never destroyed (the scan's memory goes at its end).
    u->qi_access = static_cast<IndexableColumn*>(pg_call([&] { return palloc0(sizeof(IndexableColumn) * n); }));
    for (int j = 0; j < n; ++j) new (&u->qi_access[j]) IndexableColumn{};
    u->per_class_decidable = !q.t && !q.delta && !q.c;
    u->decided_early = u->per_class_decidable && !q.needs_histograms() && (q.k || q.max_risk);
    Digest fingerprint;
    fingerprint.add(policy.name);
    fingerprint.add(std::to_string(policy.source));
    for (int j = 0; j < n; ++j) {
        const std::string& name = j < u->key_count ? rule->quasi_identifiers[j] : *rule->sensitive;
        // By the number of the column of that name when the policy's owner last approved
        // its columns: renamed since (and another column given its name), it is refused,
        // as the rules' columns are, not counted on the newcomer.
        const BoundColumn* approved = approved_column(policy, name);
        auto col = std::find_if(shape.begin(), shape.end(), [&](const ReleasedColumn& c) {
            return approved ? c.attno == approved->attno : c.name == name;
        });
        if (col != shape.end() && col->name != name) col = shape.end();
        if (col == shape.end())
            fail(ErrorKind::UndefinedObject,
                 "the suppression rule of policy " + quote_value(policy.name) + " names column " + quote_value(name) +
                     ", which its source no longer has as the policy's owner approved it (dropped, or renamed since); "
                     "the owner approves the source's columns again with privrisk.refresh_policy and sets the rule "
                     "anew with privrisk.set_suppression");
        init_output(s, u->keys[j], j, *col, policy, rule_condition, condition_used);
        u->key_outputs[j] = &u->keys[j];
        add_to_fingerprint(&fingerprint, *col, policy, u->keys[j]);
        if (j < u->key_count) {
            u->qi_attno[j] = col->attno;
            u->qi_access[j] = indexable_column(policy, *col);
        }
        Oid type = col->type;
        pg_call([&] {
            get_typlenbyval(type, &u->typlen[j], &u->typbyval[j]);
            if (j == u->key_count) init_value_text(&u->sensitive_text, type, CurrentMemoryContext, true);
        });
    }
    const std::string fingerprint_hex = fingerprint.hex();
    strlcpy(u->fingerprint, fingerprint_hex.c_str(), sizeof(u->fingerprint));
    u->count_workers = -1;
    pg_call([&] {
        u->context = AllocSetContextCreate(CurrentMemoryContext, "privrisk suppression counts", ALLOCSET_DEFAULT_SIZES);
    });
    u->memory = construct_in<PgMemoryResource>(u->context, u->context);
    u->classes = construct_in<FlatIndex>(u->context, u->memory);
    for (int j = 0; j < u->key_count; ++j) u->value_codes[j] = construct_in<FlatIndex>(u->context, u->memory);
    u->kept = construct_in<FlatIndex>(u->context, u->memory);
    u->sequence = construct_in<std::pmr::vector<uint32_t>>(u->context, u->memory);
    u->blocks = construct_in<std::pmr::vector<uint64_t>>(u->context, u->memory);
    u->run_starts = construct_in<std::pmr::vector<uint64_t>>(u->context, u->memory);
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

namespace {

// Whether the class of the row in u->values was kept by the count of the whole source.
bool kept_by_count(ReleaseScanState* s, ScanSuppression* u) {
    if (!u->kept_indexed) {
        // The record is not read again (its replay ended, or there was none): its room goes to the index.
        if (!u->replaying) guarded([&] { forget_sequence(u); });
        guarded([&] { index_kept_classes(u); });
        check_count_memory(s, u);  // the kept classes' own table
    }
    // A row the count did not see cannot come from the same snapshot; withheld all the same.
    const int length = class_code(u, false);
    return length >= 0 && u->kept->find(std::string_view(u->coded, length)) != FlatIndex::kAbsent;
}

// Whether the row in row_slot is kept, from the class the count recorded for it;
// -1 when the read is not meeting the rows the count met, in their order (from
// then on, each row's class is found by its key).
int replayed_verdict(ReleaseScanState* s, ScanSuppression* u) {
    const BlockNumber block = ItemPointerGetBlockNumber(&s->row_slot->tts_tid);
    if (u->replay_left == 0 && u->replay_run < u->blocks->size() && ((*u->blocks)[u->replay_run] >> 32) == block) {
        // A count in parallel recorded each process's rows apart: each run says where its rows are.
        if (!u->run_starts->empty()) u->replay_row = static_cast<int64>((*u->run_starts)[u->replay_run]);
        u->replay_left = static_cast<uint32_t>((*u->blocks)[u->replay_run++]);
        u->replay_block = block;
    }
    if (u->replay_left == 0 || block != u->replay_block) {
        u->replaying = u->replayable = false;
        return -1;
    }
    --u->replay_left;
    ++u->replayed;
    return u->keep[(*u->sequence)[u->replay_row++]];
}

}  // namespace

void rescan_suppression(ReleaseScanState* s) {
    ScanSuppression* u = s->suppression;
    u->replaying = u->replayable;
    u->replay_row = 0;
    u->replay_run = 0;
    u->replay_left = 0;
}

bool suppression_keeps_row(ReleaseScanState* s, ExprContext* econtext, bool* conditions_done) {
    ScanSuppression* u = s->suppression;
    if (u->replaying) {  // only after a whole-source count (never by class)
        const int verdict = replayed_verdict(s, u);
        // The row's class came from the record: its conditions have not run (the
        // state holds the last counted row's), the release runs them.
        *conditions_done = false;
        if (verdict >= 0) return verdict;
    }
    *conditions_done = true;  // every path below runs them (row_values)
    if (!u->by_class) {
        row_values(s, u, econtext);
        return kept_by_count(s, u);
    }
    row_key(s, u, econtext);
    bool keep;
    if (class_counted(u, &keep)) return keep;
    const bool counted = count_class(s, u, econtext, &keep);
    if (!counted) count_whole_source_instead(s, u);
    ResetExprContext(econtext);
    row_key(s, u, econtext);  // the current row's conditions and key again
    return counted ? keep : kept_by_count(s, u);
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

int64 suppression_rows_replayed(const ScanSuppression* u) { return u->replayed; }

int suppression_count_workers(const ScanSuppression* u) { return u->decided ? u->count_workers : -1; }

}  // namespace privrisk::pg
