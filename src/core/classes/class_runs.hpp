// Merging runs of classes: the classes of one task from several aggregators of
// one release (ClassAggregator::serialize_run), each sorted by class hash and
// key bytes, merged in one linear pass into a part of the release's
// contingency table. It is the second phase of a parallel read
// (src/pg/classes/parallel_classes.cpp): a class is in the same task's run of
// every aggregator that met it, so each class is merged once, by one process,
// without a hash table. The shards' tallies (ClassAggregator::serialize_tally)
// are merged the same way, each rebuilt into one run.
//
// A run: u64 classes, then per class u64 hash, u32 key length, the key's bytes
// (per column a u32 length, UINT32_MAX for ⊥, and the bytes), u32 length of the
// cells, and the cells (varint sensitive value id, varint count; LEB128, so a
// small cell takes 2 bytes: runs are most of the bytes a parallel read moves
// through shared memory). Ids refer to the aggregator's
// sensitive values (ClassAggregator::serialize_sensitive: u32 count, then per
// value u8 present, u32 length, bytes). One key may come twice in a row in a run
// (an aggregator keyed by binary forms codes two forms of one text apart); the
// merge takes them as one class. The merged classes use the canonical order of
// all runs' values, so the leader only appends them.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory_resource>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/byte_form.hpp"
#include "common/error.hpp"

namespace privrisk {

// The sensitive values of every run in canonical order (bytewise, ⊥ last, as
// ContingencyTable::canonicalize orders them) and each run's ids among them.
struct RunValues {
    std::vector<std::optional<std::string>> values;
    std::vector<std::vector<uint32_t>> ids;  // per run: its value id -> canonical id
};
// From each run's sensitive values (ClassAggregator::serialize_sensitive), checked.
RunValues run_values(const std::vector<std::string_view>& sensitive);

// Merges the runs of one task (runs[i] with run_values' ids[i]) into a part of
// the release's contingency table, already canonical: u64 entries, then per
// entry i64 multiplicity (identical small classes are one entry), u32 length of
// its pairs and the pairs (varint canonical value id, varint count) in id order
// (ContingencyTable::from_canonical_parts). Every length, id, count and the
// runs' order are checked.
std::string merge_class_runs(const std::vector<std::string_view>& runs, const RunValues& values);
// The same in `mr` (a caller's bounded memory).
std::pmr::string merge_class_runs(const std::vector<std::string_view>& runs, const RunValues& values,
                                  std::pmr::memory_resource* mr);

// The same with each class's key first (u32 length and the key's bytes, as in
// a run) for callers that roll classes up by their values (search's base
// classes): every class is an entry of its own, with no multiplicity.
std::string merge_keyed_runs(const std::vector<std::string_view>& runs, const RunValues& values);

// A class's cells as a run has them: on_cell(id, count) for each (varint id, varint
// count), the id below `ids` and the count in 1 .. 2^63 - 1 checked; a class
// without a cell is refused.
template <typename F>
void for_each_run_cell(std::string_view cells, std::size_t ids, F&& on_cell) {
    if (cells.empty()) fail(ErrorKind::InvalidParameter, "a class run's class is empty");
    for (ByteReader r{cells, "a class run"}; !r.in.empty();) {
        const uint64_t id = r.varint(), count = r.varint();
        if (id >= ids || count == 0 || count > uint64_t(INT64_MAX))
            fail(ErrorKind::InvalidParameter, "a class run's count is malformed");
        on_cell(static_cast<uint32_t>(id), static_cast<int64_t>(count));
    }
}

// A key's value as runs carry it: u32 length (UINT32_MAX for ⊥) and its bytes;
// returns their end. key_value_size says how many.
inline std::size_t key_value_size(std::optional<std::string_view> value) {
    return sizeof(uint32_t) + (value ? value->size() : 0);
}
inline char* put_key_value(char* to, std::optional<std::string_view> value) {
    const uint32_t length = value ? static_cast<uint32_t>(value->size()) : UINT32_MAX;  // callers bound it
    std::memcpy(to, &length, sizeof length);
    return value ? put_raw(to + sizeof length, *value) : to + sizeof length;
}

// The values of a key as runs and merged parts carry it: on_value(column, bytes)
// per column of `width`, nullopt for ⊥. A key that does not end with its last
// value is refused (a run may come from another server).
template <typename F>
void for_each_key_value(std::string_view key, std::size_t width, F&& on_value) {
    ByteReader k{key, "a class key"};
    for (std::size_t j = 0; j < width; ++j) {
        const uint32_t length = k.get<uint32_t>();
        on_value(j, length == UINT32_MAX ? std::optional<std::string_view>()
                                         : std::optional<std::string_view>(k.bytes(length)));
    }
    if (!k.in.empty()) fail(ErrorKind::InvalidParameter, "a class key has more values than its columns");
}

// Reads such a part: on_class(key, pairs, n) for each class, the n (canonical
// value id, count) pairs in id order, each id checked against the `values` there are.
template <typename F>
void for_each_keyed_class(std::string_view part, std::size_t values, F&& on_class) {
    std::vector<std::pair<uint32_t, int64_t>> pairs;
    ByteReader r{part, "a class part"};
    for (uint64_t n = r.get<uint64_t>(); n > 0; --n) {
        const std::string_view key = r.bytes(r.get<uint32_t>());
        const uint32_t count = r.get<uint32_t>();
        r.need(std::size_t(count) * (sizeof(uint32_t) + sizeof(int64_t)));  // nothing sized by a lie
        pairs.resize(count);
        for (auto& [id, rows] : pairs) {
            id = r.get<uint32_t>();
            rows = r.get<int64_t>();
            if (id >= values) fail(ErrorKind::Internal, "a class part names an unknown value");
        }
        on_class(key, pairs.data(), pairs.size());
    }
    if (!r.in.empty()) fail(ErrorKind::Internal, "a class part has trailing bytes");
}

// The same for distinct tuples (runs of aggregators without a sensitive column):
// u64 tuples, then per tuple u32 key length, the key's bytes (as in a run) and
// i64 count, in key order.
std::string merge_tuple_runs(const std::vector<std::string_view>& runs);

}  // namespace privrisk
