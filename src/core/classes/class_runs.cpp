#include "classes/class_runs.hpp"

#include "classes/class_aggregator.hpp"

#include <algorithm>
#include <cstring>
#include <type_traits>

#include "common/byte_form.hpp"
#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

namespace {

// One run as it is read: its current class.
struct Cursor {
    ByteReader in{{}, "a class run"};
    uint64_t left = 0;
    uint64_t hash = 0;
    std::string_view key, cells;                 // cells: (varint value id, varint count) each
    const std::vector<uint32_t>* ids = nullptr;  // its value ids -> canonical ids

    bool next() {
        if (left == 0) {
            if (!in.in.empty()) fail(ErrorKind::InvalidParameter, "a class run has trailing bytes");
            return false;
        }
        uint64_t previous = hash;
        std::string_view previous_key = key;
        hash = in.get<uint64_t>();
        key = in.bytes(in.get<uint32_t>());
        cells = in.bytes(in.get<uint32_t>());
        if (cells.empty()) fail(ErrorKind::InvalidParameter, "a class run's class is empty");
        // One key may come twice in a row: a tally codes its values by their binary forms, and
        // two of those can have one text (NaN and -NaN); merge_runs takes both as one class.
        if (previous_key.data() && (hash < previous || (previous == hash && key < previous_key)))
            fail(ErrorKind::InvalidParameter, "a class run is out of order");
        --left;
        return true;
    }
};

bool before(const Cursor& a, const Cursor& b) { return a.hash != b.hash ? a.hash < b.hash : a.key < b.key; }

// A class's cells in one run's entry, with that run's value ids.
struct Piece {
    std::string_view cells;
    const std::vector<uint32_t>* ids;
};

// A merged part: its count of entries, then their bytes. The count is written last,
// in the room left for it at the start, so the part is not copied.
template <typename String>
void start_part(String& body) {
    body.assign(sizeof(uint64_t), '\0');
}
template <typename String>
void finish_part(String& body, uint64_t entries) {
    std::memcpy(body.data(), &entries, sizeof entries);
}

}  // namespace

RunValues run_values(const std::vector<std::string_view>& sensitive) {
    struct Read {
        bool present;
        std::string_view text;
        std::size_t run;
        uint32_t id;
    };
    std::vector<Read> all;
    RunValues out;
    out.ids.resize(sensitive.size());
    for (std::size_t r = 0; r < sensitive.size(); ++r) {
        ByteReader s{sensitive[r], "a class run's sensitive values"};
        const uint32_t m =
            ClassAggregator::read_sensitive(s, "a class run", [&](uint32_t v, bool present, std::string_view text) {
                all.push_back(Read{present, text, r, v});
            });
        if (!s.in.empty()) fail(ErrorKind::InvalidParameter, "a class run's sensitive values have trailing bytes");
        out.ids[r].assign(m, 0);
    }
    // Canonical order: bytewise, ⊥ last; equal values of several runs get one id.
    auto less = [](const Read& a, const Read& b) {
        if (a.present != b.present) return a.present;
        return a.text < b.text;
    };
    std::sort(all.begin(), all.end(), less);
    for (std::size_t i = 0; i < all.size(); ++i) {
        if (i == 0 || less(all[i - 1], all[i]))
            out.values.push_back(all[i].present ? std::optional<std::string>(std::string(all[i].text)) : std::nullopt);
        uint32_t& id = out.ids[all[i].run][all[i].id];
        id = static_cast<uint32_t>(out.values.size() - 1);
    }
    return out;
}

namespace {

// Walks the runs in key order, calling on_key(key, the pieces of every run's entries at
// that key) once per distinct key; the cursors are then past it.
template <typename F>
void merge_runs(const std::vector<std::string_view>& runs, const RunValues* values, F&& on_key) {
    std::vector<Cursor> cursors(runs.size());
    std::vector<Cursor*> live;
    std::vector<Piece> at;
    for (std::size_t r = 0; r < runs.size(); ++r) {
        Cursor& c = cursors[r];
        if (values) c.ids = &values->ids[r];
        c.in.in = runs[r];
        c.left = c.in.get<uint64_t>();
        c.in.need(c.left * (sizeof(uint64_t) + 2 * sizeof(uint32_t)));  // each class takes at least this
        if (c.next()) live.push_back(&c);
    }
    while (!live.empty()) {
        const Cursor* least = live[0];
        for (std::size_t i = 1; i < live.size(); ++i)
            if (before(*live[i], *least)) least = live[i];
        const uint64_t hash = least->hash;
        const std::string_view key = least->key;  // into its run's bytes: stays valid as the cursor moves
        at.clear();
        for (std::size_t i = 0; i < live.size();) {  // every entry at the key, of every run
            Cursor* c = live[i];
            bool more = true;
            while (more && c->hash == hash && c->key == key) {
                at.push_back(Piece{c->cells, c->ids});
                more = c->next();
            }
            if (more) ++i;
            else live.erase(live.begin() + static_cast<std::ptrdiff_t>(i));
        }
        on_key(key, at);
    }
}

}  // namespace

namespace {

// A part's distinct small classes (merge_classes without keys): identical
// classes, common among small ones, are stored once per part with their
// multiplicity, so the measures after the read visit fewer entries (309,564 for
// 691,424 classes at 10M census rows). Classes of more rows are nearly all
// unlike each other and are not looked up. Open addressing over (hash of the
// pairs, the entry's offset).
class Shapes {
public:
    static constexpr int64_t kMaxRows = 16;  // the classes looked up

    // The entry at `at` of `body` (i64 multiplicity, u32 length, pairs), just
    // appended: true if an identical class was there, whose multiplicity then
    // grows by one; the caller drops the new entry.
    template <typename String>
    bool seen(String& body, std::size_t at) {
        const std::size_t head = sizeof(int64_t);  // the multiplicity; then the pairs' length and the pairs
        std::string_view pairs(body.data() + at + head, body.size() - at - head);
        const uint64_t h = FlatIndex::hash(pairs) | 1;  // 0: an empty slot
        if (2 * (used_ + 1) > slots_.size()) grow();
        const std::size_t mask = slots_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            Slot& s = slots_[i];
            if (s.hash == 0) {
                s = Slot{h, at};
                ++used_;
                return false;
            }
            // Same hash, same length of pairs (its first u32, so the compare stays in the entry), same pairs.
            if (s.hash == h && std::memcmp(body.data() + s.at + head, pairs.data(), sizeof(uint32_t)) == 0 &&
                std::memcmp(body.data() + s.at + head, pairs.data(), pairs.size()) == 0) {
                char* m = body.data() + s.at;
                int64_t multiplicity;
                std::memcpy(&multiplicity, m, sizeof multiplicity);
                ++multiplicity;  // at most the rows read: no overflow
                std::memcpy(m, &multiplicity, sizeof multiplicity);
                return true;
            }
        }
    }

private:
    struct Slot {
        uint64_t hash;
        std::size_t at;
    };
    void grow() {
        std::vector<Slot> old(std::max<std::size_t>(1024, 2 * slots_.size()));
        old.swap(slots_);
        const std::size_t mask = slots_.size() - 1;
        for (const Slot& s : old)
            if (s.hash) {
                std::size_t i = s.hash & mask;
                while (slots_[i].hash) i = (i + 1) & mask;
                slots_[i] = s;
            }
    }
    std::vector<Slot> slots_;
    std::size_t used_ = 0;
};

template <typename String>
void merge_classes(const std::vector<std::string_view>& runs, const RunValues& values, bool with_keys, String& body) {
    if (runs.size() != values.ids.size()) fail(ErrorKind::Internal, "class runs without their values");
    std::vector<int64_t> counts(values.values.size(), 0);  // by canonical id, 0 outside the class being merged
    // The ids a class has: with at most 64 values a bit mask, read in id order at no cost;
    // else a list, sorted.
    const bool few = values.values.size() <= 64;
    uint64_t mask = 0;
    std::vector<uint32_t> touched;
    // Merged classes usually take fewer bytes than their runs (a class met by several
    // processes is written once); a part of many small one-process classes grows past it.
    // In a caller's bounded memory (a std::pmr::string) the part only grows: reserving the
    // runs' size there would count bytes the part never takes against the caller's limit.
    if constexpr (std::is_same_v<String, std::string>) {
        std::size_t bytes = 0;
        for (std::string_view run : runs) bytes += run.size();
        body.reserve(sizeof(uint64_t) + bytes);
    }
    start_part(body);
    uint64_t entries = 0;
    Shapes shapes;
    merge_runs(runs, &values, [&](std::string_view key, const std::vector<Piece>& at) {
        int64_t rows = 0;
        for (const Piece& c : at)
            for_each_run_cell(c.cells, c.ids->size(), [&](uint32_t id, int64_t count) {
                uint32_t to = (*c.ids)[id];
                if (few) mask |= uint64_t(1) << to;
                else if (counts[to] == 0) touched.push_back(to);
                if (__builtin_add_overflow(counts[to], count, &counts[to]) ||
                    __builtin_add_overflow(rows, count, &rows))
                    fail(ErrorKind::ProgramLimit, "a class counts more than 2^63 - 1 rows");
            });
        const std::size_t entry = body.size();
        auto each_id = [&](auto&& f) {  // the class's ids in id order, each count then cleared
            if (few) {
                for (; mask; mask &= mask - 1) f(static_cast<uint32_t>(__builtin_ctzll(mask)));
            } else {
                std::sort(touched.begin(), touched.end());
                for (uint32_t to : touched) f(to);
                touched.clear();
            }
        };
        const std::size_t pairs = few ? static_cast<std::size_t>(__builtin_popcountll(mask)) : touched.size();
        if (with_keys) {  // u32 key length, key, u32 pairs, (u32 id, i64 count) pairs
            put_bytes<uint32_t>(body, static_cast<uint32_t>(key.size()));
            body.append(key);
            put_bytes<uint32_t>(body, static_cast<uint32_t>(pairs));
            each_id([&](uint32_t to) {
                put_bytes<uint32_t>(body, to);
                put_bytes<int64_t>(body, counts[to]);
                counts[to] = 0;
            });
        } else {  // i64 multiplicity, u32 length of the pairs, (varint id, varint count) pairs
            put_bytes<int64_t>(body, 1);
            put_bytes<uint32_t>(body, 0);
            const std::size_t start = body.size();
            char buf[2 * kMaxVarint];
            each_id([&](uint32_t to) {
                body.append(buf, static_cast<std::size_t>(
                                     put_varint(put_varint(buf, to), static_cast<uint64_t>(counts[to])) - buf));
                counts[to] = 0;
            });
            const uint32_t length = static_cast<uint32_t>(body.size() - start);  // at most 20 bytes a value: < 4 GB
            std::memcpy(body.data() + start - sizeof length, &length, sizeof length);
        }
        if (!with_keys && rows <= Shapes::kMaxRows && shapes.seen(body, entry)) body.resize(entry);
        else ++entries;
    });
    finish_part(body, entries);
}

}  // namespace

std::string merge_class_runs(const std::vector<std::string_view>& runs, const RunValues& values) {
    std::string part;
    merge_classes(runs, values, false, part);
    return part;
}

std::pmr::string merge_class_runs(const std::vector<std::string_view>& runs, const RunValues& values,
                                  std::pmr::memory_resource* mr) {
    std::pmr::string part(mr);
    merge_classes(runs, values, false, part);
    return part;
}

std::string merge_keyed_runs(const std::vector<std::string_view>& runs, const RunValues& values) {
    std::string part;
    merge_classes(runs, values, true, part);
    return part;
}

std::string merge_tuple_runs(const std::vector<std::string_view>& runs) {
    std::string body;
    start_part(body);
    uint64_t tuples = 0;
    merge_runs(runs, nullptr, [&](std::string_view key, const std::vector<Piece>& at) {
        int64_t total = 0;
        for (const Piece& c : at) {
            for (ByteReader cells{c.cells, "a class run"}; !cells.in.empty();) {
                cells.varint();  // the sensitive value: none is read for tuples
                const uint64_t count = cells.varint();
                if (count == 0 || count > uint64_t(INT64_MAX))
                    fail(ErrorKind::InvalidParameter, "a class run's count is malformed");
                if (__builtin_add_overflow(total, static_cast<int64_t>(count), &total))
                    fail(ErrorKind::ProgramLimit, "a tuple counts more than 2^63 - 1 rows");
            }
        }
        put_bytes<uint32_t>(body, static_cast<uint32_t>(key.size()));
        body.append(key);
        put_bytes<int64_t>(body, total);
        ++tuples;
    });
    finish_part(body, tuples);
    return body;
}

}  // namespace privrisk
