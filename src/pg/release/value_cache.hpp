// The value cache of a release scan: the released text of each generalized
// source value, per column and level, built as values are first seen. The
// lookup is inline in the per-row path; a miss generalizes through the hierarchy.
#pragma once

#include "release/scan_state.hpp"

namespace privrisk::pg {

// Whether a value's cache key is a WordMap word (a short text), else a FlatIndex key.
inline bool keyed_by_word(const ReleasedOutput* out, std::string_view value) {
    return !out->by_datum && value.size() <= WordMap<text>::kMaxKey;
}

// A by-value datum as an index key: its 8 bytes.
inline std::string_view datum_key(const uint64_t* key) {
    return std::string_view(reinterpret_cast<const char*>(key), 8);
}

// Not cached yet: generalize now (rarely; kept out of the per-row path).
Datum generalized_miss(ReleaseScanState* s, ReleasedOutput* out, Datum value, int level);

// A pseudonymized value's pseudonym, a text in CurrentMemoryContext: computed per
// row (identifiers are mostly distinct), through the column's cache of recent
// ones. PostgreSQL-style: may raise an ERROR, never throws.
Datum pseudonymized_text(ReleaseScanState* s, ReleasedOutput* out, Datum value);

// The released text of `value` at `level` (< height): from the cache, or generalized now.
inline Datum generalized_text(ReleaseScanState* s, ReleasedOutput* out, Datum value, int level) {
    if (LevelCache* cache = out->levels[level]) {  // never for a pseudonym (not cached)
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
    if (out->pseudonymizer && level > 0) return pseudonymized_text(s, out, value);
    return generalized_miss(s, out, value, level);
}

}  // namespace privrisk::pg
