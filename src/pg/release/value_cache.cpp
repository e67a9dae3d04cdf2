// The value cache's miss path: generalize through the hierarchy (or pseudonymize),
// intern the released text, and remember it while there is room.
#include "release/value_cache.hpp"

namespace privrisk::pg {
namespace {

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

// A gen column's value at r->level, through its hierarchy.
void generalize_through_hierarchy(MissRequest* r, std::string& scratch, Value& g) {
    ReleasedOutput* out = r->out;
    const Hierarchy& h = cached_hierarchy(out->hierarchy);
    if (h.height() != out->height)
        fail(ErrorKind::InvalidParameter, "hierarchy " + quote_value(out->hierarchy) + " changed during the release");
    try {
        g = h.generalize(r->value, r->level, scratch);
    } catch (const Error&) {
        // Never name the value: the reader may see only released data.
        fail(ErrorKind::InvalidParameter,
             "a value of column " + quote_value(out->name) + " is not in hierarchy " + quote_value(out->hierarchy));
    }
}

// Remembers a miss's released text `g` while there is room, and sets r->result.
void cache_result(MissRequest* r, Value g) {
    ReleaseScanState* s = r->state;
    ReleasedOutput* out = r->out;
    // Full (by entries per column, or by privrisk.memory_limit for the whole scan):
    // the value is released from the per-row memory, and generalized again when seen again.
    // Read through an index, a scan's first misses are released uncached: a query that reads a
    // few rows never builds the caches, whose tables cost more than the rows.
    if (s->index_access && ++s->misses <= kUncachedMisses) {
        r->result = make_text(CurrentMemoryContext, g);
        return;
    }
    if (out->cached >= kCacheEntries || MemoryContextMemAllocated(s->cache_context, true) >= s->cache_limit) {
        ++s->cache_refused;
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
        if (r->result)
            cache.words.put(WordMap<text>::word(r->value), r->result);  // ⊥ is not cached (it is no valid level's)
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

// Generalizes a value not in the cache, and caches it while there is room.
// May throw; runs behind guarded().
void generalize_miss(MissRequest* r) {
    ReleasedOutput* out = r->out;
    std::string scratch;
    Value g;
    if (!out->pseudonymizer) {
        generalize_through_hierarchy(r, scratch, g);
    } else {  // pseudonymized, disclosed as it is (pseudonymized_text has the pseudonyms)
        g = r->value;
    }
    cache_result(r, g);
}

}  // namespace

Datum pseudonymized_text(ReleaseScanState* s, ReleasedOutput* out, Datum value) {
    std::string_view v = value_text(&out->value_text, value);
    // Identifiers are mostly distinct: a fixed cache of recent pseudonyms, not the
    // value cache (which would grow and rehash for values never seen again).
    if (!out->pseudonyms && !out->pseudonyms_refused) {
        if (MemoryContextMemAllocated(s->cache_context, true) + sizeof(PseudonymCache) <= s->cache_limit)
            out->pseudonyms =
                static_cast<PseudonymCache*>(MemoryContextAllocZero(s->cache_context, sizeof(PseudonymCache)));
        else out->pseudonyms_refused = true;  // no room within privrisk.memory_limit: every value through the PRF
    }
    auto* t = static_cast<text*>(palloc(VARHDRSZ + kPseudonymChars));
    SET_VARSIZE(t, VARHDRSZ + kPseudonymChars);
    if (out->pseudonyms) cached_pseudonym(out->pseudonyms, out->pseudonymizer, v, VARDATA(t));
    else pseudonym(out->pseudonymizer, v, VARDATA(t));
    return PointerGetDatum(t);
}

__attribute__((noinline)) Datum generalized_miss(ReleaseScanState* s, ReleasedOutput* out, Datum value, int level) {
    if (s->hierarchy_generation != hierarchy_generation()) {
        // A hierarchy changed mid-query. Record suppression counted the classes of
        // the values released with the old one: rows released with the new one
        // could form classes it never counted, so such a read stops.
        if (s->suppression)
            refuse_changed_release(
                s->policy, "a hierarchy changed during the read, after record suppression had counted its classes");
        // Otherwise what is cached may be stale (an output that is not generalized has no cache).
        for (int c = 0; c < s->output_count; ++c) {
            if (s->outputs[c].levels)
                for (int l = 0; l < s->outputs[c].height; ++l) s->outputs[c].levels[l] = nullptr;
            s->outputs[c].texts = nullptr;
            s->outputs[c].cached = 0;
        }
        s->hierarchy_generation = hierarchy_generation();
    }
    MissRequest miss{s, out, level, static_cast<uint64_t>(value), value_text(&out->value_text, value), nullptr};
    guarded([&] { generalize_miss(&miss); });
    return PointerGetDatum(miss.result);
}

}  // namespace privrisk::pg
