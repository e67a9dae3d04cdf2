#include "classes/class_aggregator.hpp"
#include "classes/class_runs.hpp"

#include <algorithm>
#include <cstring>
#include <unordered_map>

#include "common/byte_form.hpp"
#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

ClassAggregator::ClassAggregator(std::pmr::memory_resource* mr, std::size_t quasi_identifiers, std::size_t buffer_rows)
    : mr_(mr),
      qi_count_(quasi_identifiers),
      record_words_(quasi_identifiers + 1),
      codes_(mr),
      texts_(mr),
      text_ends_(mr),
      value_hashes_(mr),
      partitions_(mr),
      run_(mr),
      record_(quasi_identifiers + 1),
      buffer_rows_(buffer_rows ? buffer_rows : 1) {
    if (record_words_ > kBlockWords) fail(ErrorKind::ProgramLimit, "too many quasi-identifiers");
    for (std::size_t i = 0; i < quasi_identifiers; ++i) {
        codes_.emplace_back(mr);
        texts_.emplace_back();
        text_ends_.emplace_back();
        value_hashes_.emplace_back();
    }
    for (std::size_t p = 0; p < kPartitions; ++p) partitions_.emplace_back(mr);
}

uint64_t ClassAggregator::hash_codes(const uint32_t* codes, std::size_t k) {
    uint64_t h = 0x9e3779b97f4a7c15ull ^ k;
    for (std::size_t i = 0; i < k; ++i) {
        h ^= codes[i];
        h *= 0xbf58476d1ce4e5b9ull;
        h ^= h >> 31;
    }
    h *= 0x94d049bb133111ebull;
    h ^= h >> 29;
    return h;
}

// A value's code: 0 is ⊥, a value gets its index + 1. A new value's text is kept.
uint32_t ClassAggregator::code(std::size_t column, std::string_view key, Texts* texts) {
    bool added;
    uint32_t code = codes_[column].find_or_add(key, &added);
    if (added) {
        if (code >= UINT32_MAX - 1) fail(ErrorKind::ProgramLimit, "too many distinct quasi-identifier values");
        std::string_view text = texts ? texts->text(column) : key;
        texts_[column].insert(texts_[column].end(), text.begin(), text.end());
        text_ends_[column].push_back(texts_[column].size());
        // By its text: the tallies of other servers, whose binary forms may differ, then
        // put each class in the same place of their runs (serialize_tally).
        value_hashes_[column].push_back(FlatIndex::hash(text));
    }
    return code + 1;
}

std::string_view ClassAggregator::key_text(std::size_t column, uint32_t code) const {
    const uint64_t start = code == 1 ? 0 : text_ends_[column][code - 2], end = text_ends_[column][code - 1];
    return std::string_view(texts_[column].data() + start, end - start);
}

void ClassAggregator::add(const Value* qi, Value sensitive, Texts* texts) {
    if (texts) binary_keys_ = true;
    for (std::size_t i = 0; i < qi_count_; ++i) record_[i] = qi[i] ? code(i, *qi[i], texts) : 0;
    record_[qi_count_] = table_.intern(sensitive);
    Partition& p = partitions_[partition_of(record_.data())];
    if (p.blocks.empty() || p.used + record_words_ > kBlockWords) {
        if (!p.blocks.empty()) ++p.full_blocks, p.used = 0;
        if (p.full_blocks == p.blocks.size())
            p.blocks.push_back(
                static_cast<uint32_t*>(mr_->allocate(kBlockWords * sizeof(uint32_t), alignof(uint32_t))));
    }
    uint32_t* to = p.blocks[p.full_blocks] + p.used;  // a few words: a loop, not a library call
    for (std::size_t w = 0; w < record_words_; ++w) to[w] = record_[w];
    p.used += record_words_;
    ++rows_;
    if (++buffered_ == buffer_rows_) fold_all();
}

uint32_t ClassAggregator::find_class(Partition& p, const uint32_t* row) {
    const std::size_t k = qi_count_;
    if (2 * (p.first.size() + 1) > p.slots.size()) {  // keep the load under one half
        std::size_t n = std::max<std::size_t>(64, 2 * p.slots.size());
        p.slots.assign(n, 0);
        for (uint32_t id = 0; id < p.first.size(); ++id) {
            std::size_t i = hash_codes(p.keys.data() + std::size_t(id) * k, k) & (n - 1);
            while (p.slots[i] != 0) i = (i + 1) & (n - 1);
            p.slots[i] = id + 1;
        }
    }
    std::size_t mask = p.slots.size() - 1;
    for (std::size_t i = hash_codes(row, k) & mask;; i = (i + 1) & mask) {
        if (p.slots[i] == 0) {
            uint32_t id = static_cast<uint32_t>(p.first.size());
            p.slots[i] = id + 1;
            p.keys.insert(p.keys.end(), row, row + k);
            p.first.push_back(UINT32_MAX);
            return id;
        }
        if (std::equal(row, row + k, p.keys.data() + std::size_t(p.slots[i] - 1) * k)) return p.slots[i] - 1;
    }
}

void ClassAggregator::add_cell(Partition& p, uint32_t id, uint32_t value, int64_t count) {
    for (uint32_t c = p.first[id]; c != UINT32_MAX; c = p.cells[c].next)
        if (p.cells[c].value == value) {
            if (__builtin_add_overflow(p.cells[c].count, count, &p.cells[c].count))
                fail(ErrorKind::ProgramLimit, "a class counts more than 2^63 - 1 rows");
            return;
        }
    if (p.cells.size() >= UINT32_MAX - 1) fail(ErrorKind::ProgramLimit, "too many classes for audit()");
    p.cells.push_back(Cell{value, p.first[id], count});
    p.first[id] = static_cast<uint32_t>(p.cells.size() - 1);
}

void ClassAggregator::add_class_row(Partition& p, const uint32_t* row, int64_t count) {
    add_cell(p, find_class(p, row), row[qi_count_], count);
}

// A partition's cells are read by chasing each class's chain, in no order the
// hardware can guess; long after the partition was last folded they are in
// memory, not cache. Reading them once in order first brings them in at memory
// speed (the partition fits in cache), so the chase then hits cache.
// Loads, not prefetches: a core drops prefetches past its few outstanding misses.
void ClassAggregator::warm(const Partition& p) {
    const char* at = reinterpret_cast<const char*>(p.cells.data());
    const char* end = at + p.cells.size() * sizeof(Cell);
    uint64_t sum = 0;
    for (; at < end; at += 64) {
        uint64_t w;
        std::memcpy(&w, at, sizeof w);
        sum += w;
    }
    asm volatile("" : : "r"(sum));  // the loads stay: their values are not needed, only the lines
}

void ClassAggregator::fold(Partition& p) {
    if (p.blocks.empty()) return;
    const std::size_t words = record_words_, per_block = (kBlockWords / words) * words;
    for (std::size_t b = 0; b <= p.full_blocks && b < p.blocks.size(); ++b) {
        std::size_t end = b == p.full_blocks ? p.used : per_block;
        for (std::size_t w = 0; w < end; w += words) add_class_row(p, p.blocks[b] + w);
    }
    p.full_blocks = 0;  // the blocks stay, for the next rows
    p.used = 0;
}

void ClassAggregator::fold_all() {
    for (Partition& p : partitions_) fold(p);
    buffered_ = 0;
}

ContingencyTable ClassAggregator::finish() {
    fold_all();
    std::size_t classes = 0, pairs = 0;
    for (const Partition& p : partitions_) classes += p.first.size(), pairs += p.cells.size();
    table_.reserve(classes, pairs);
    std::vector<ContingencyTable::Pair> counts;
    for (Partition& p : partitions_) {
        warm(p);
        for (uint32_t id = 0; id < p.first.size(); ++id) {
            counts.clear();
            for (uint32_t c = p.first[id]; c != UINT32_MAX; c = p.cells[c].next)
                counts.emplace_back(p.cells[c].value, p.cells[c].count);
            table_.add_class(counts);
        }
        for (uint32_t* block : p.blocks) mr_->deallocate(block, kBlockWords * sizeof(uint32_t), alignof(uint32_t));
        p = Partition(mr_);  // give the partition's memory back as we go
    }
    table_.canonicalize();
    return std::move(table_);
}

std::string ClassAggregator::serialize_values() {
    fold_all();
    std::string out;
    put_bytes<uint32_t>(out, static_cast<uint32_t>(qi_count_));
    for (std::size_t i = 0; i < qi_count_; ++i) {
        put_bytes<uint32_t>(out, static_cast<uint32_t>(text_ends_[i].size()));
        uint64_t start = 0;
        for (uint64_t end : text_ends_[i]) {
            put_bytes<uint32_t>(out, static_cast<uint32_t>(end - start));
            out.append(texts_[i].data() + start, end - start);
            start = end;
        }
    }
    put_sensitive(out);
    return out;
}

void ClassAggregator::put_sensitive(std::string& out) const {
    const auto& values = table_.values();  // the sensitive values, by id
    put_bytes<uint32_t>(out, static_cast<uint32_t>(values.size()));
    for (const auto& v : values) {
        put_bytes<uint8_t>(out, v ? 1 : 0);
        put_bytes<uint32_t>(out, v ? static_cast<uint32_t>(v->size()) : 0);
        if (v) out += *v;
    }
}

std::string ClassAggregator::serialize_sensitive() {
    std::string out;
    put_sensitive(out);
    return out;
}

std::string ClassAggregator::serialize_run(std::size_t task, std::size_t tasks) {
    std::string out;
    serialize_run(task, tasks, [&out](std::size_t size) {
        out.assign(size, '\0');
        return out.data();
    });
    return out;
}

void ClassAggregator::serialize_run(std::size_t task, std::size_t tasks,
                                    const std::function<char*(std::size_t)>& place) {
    if (tasks == 0 || tasks > kMaxTasks || task >= tasks) fail(ErrorKind::Internal, "a class run's task out of range");
    fold_all();
    const std::size_t k = qi_count_, first = task * kPartitions / tasks, end = (task + 1) * kPartitions / tasks;
    // Each class's record (its key, then its cells) is made here first, so the run's size is
    // known before it is placed; then the records are written in (hash, key) order.
    using Entry = RunEntry;
    std::size_t classes = 0;
    for (std::size_t q = first; q < end; ++q) classes += partitions_[q].first.size();
    auto& entries = run_.entries;
    entries.clear();
    entries.reserve(classes);
    auto& records = run_.records;  // used as a buffer: its size is its room
    if (records.size() < std::max<std::size_t>(4096, classes * 32))
        records.resize(std::max<std::size_t>(4096, classes * 32));
    char* to = records.data();
    auto room = [&](std::size_t n) {  // n more bytes at `to`
        const std::size_t at = static_cast<std::size_t>(to - records.data());
        if (records.size() - at < n) {
            records.resize(std::max(2 * records.size(), at + n));
            to = records.data() + at;
        }
    };
    std::vector<std::optional<std::string_view>> texts(k);
    // Sorted as (hash, entry) pairs: half the bytes to move; keys are compared only on equal
    // hashes. A partition is the top bits of its classes' hashes, so sorting each partition's
    // classes apart (a few thousand, in cache) and putting the partitions in order sorts the task.
    auto& order = run_.order;
    order.clear();
    order.reserve(classes);
    auto key_of = [&](const Entry& e) {
        return std::string_view(records.data() + e.at + sizeof(uint32_t), e.key_length);
    };
    for (std::size_t q = first; q < end; ++q) {
        const Partition& p = partitions_[q];
        warm(p);
        const std::size_t sorted = order.size();
        for (uint32_t id = 0; id < p.first.size(); ++id) {
            const uint32_t* codes = p.keys.data() + std::size_t(id) * k;
            std::size_t key_length = 0;
            for (std::size_t i = 0; i < k; ++i) {
                texts[i] = codes[i] ? std::optional<std::string_view>(key_text(i, codes[i])) : std::nullopt;
                key_length += key_value_size(texts[i]);
            }
            if (key_length > UINT32_MAX) fail(ErrorKind::ProgramLimit, "a class's key takes more than 4 GB");
            room(2 * sizeof(uint32_t) + key_length);
            Entry e{class_hash(codes), static_cast<std::size_t>(to - records.data()), static_cast<uint32_t>(key_length),
                    0};
            const uint32_t key_bytes = static_cast<uint32_t>(key_length);
            std::memcpy(to, &key_bytes, sizeof key_bytes);
            to += sizeof key_bytes;
            for (std::size_t i = 0; i < k; ++i) to = put_key_value(to, texts[i]);
            to += sizeof(uint32_t);  // the cells' bytes, below
            for (uint32_t c = p.first[id]; c != UINT32_MAX; c = p.cells[c].next) {
                room(2 * kMaxVarint);
                to = put_varint(to, p.cells[c].value);
                to = put_varint(to, static_cast<uint64_t>(p.cells[c].count));
            }
            char* cells_at = records.data() + e.at + sizeof(uint32_t) + key_length;  // records may have moved
            const std::size_t cell_bytes = static_cast<std::size_t>(to - cells_at) - sizeof(uint32_t);
            const std::size_t length = static_cast<std::size_t>(to - records.data()) - e.at;
            if (length > UINT32_MAX) fail(ErrorKind::ProgramLimit, "a class's sensitive counts take more than 4 GB");
            const uint32_t cells = static_cast<uint32_t>(cell_bytes);
            std::memcpy(cells_at, &cells, sizeof cells);
            e.length = static_cast<uint32_t>(length);
            order.emplace_back(e.hash, static_cast<uint32_t>(entries.size()));
            entries.push_back(e);
        }
        std::sort(order.begin() + sorted, order.end(), [&](const auto& a, const auto& b) {
            if (a.first != b.first) return a.first < b.first;
            return key_of(entries[a.second]) < key_of(entries[b.second]);
        });
    }
    std::size_t size = sizeof(uint64_t);
    for (const Entry& e : entries) size += sizeof(uint64_t) + e.length;
    to = place(size);
    const uint64_t count = classes;
    std::memcpy(to, &count, sizeof count);
    to += sizeof(uint64_t);
    for (const auto& [hash, index] : order) {
        const Entry& e = entries[index];
        std::memcpy(to, &hash, sizeof hash);
        std::memcpy(to + sizeof hash, records.data() + e.at, e.length);
        to += sizeof hash + e.length;
    }
}

void ClassAggregator::put_classes(std::string& out) const {
    // Sized first and written in place: the byte form is most of a tally's cost to send.
    const std::size_t k = qi_count_, class_bytes = k * sizeof(uint32_t) + sizeof(uint32_t);
    const std::size_t cell_bytes = sizeof(uint32_t) + sizeof(int64_t);
    uint64_t classes = 0;
    std::size_t size = sizeof(uint64_t);
    for (const Partition& p : partitions_) {
        classes += p.first.size();
        size += p.first.size() * class_bytes + p.cells.size() * cell_bytes;
    }
    std::size_t at = out.size();
    out.resize(at + size);
    char* to = out.data() + at;
    auto put = [&to](auto v) {
        std::memcpy(to, &v, sizeof v);
        to += sizeof v;
    };
    put(classes);
    for (const Partition& p : partitions_) {
        for (uint32_t id = 0; id < p.first.size(); ++id) {
            std::memcpy(to, p.keys.data() + std::size_t(id) * k, k * sizeof(uint32_t));
            to += k * sizeof(uint32_t);
            char* count_at = to;
            to += sizeof(uint32_t);
            uint32_t n = 0;
            for (uint32_t c = p.first[id]; c != UINT32_MAX; c = p.cells[c].next, ++n) {
                put(p.cells[c].value);
                put(p.cells[c].count);
            }
            std::memcpy(count_at, &n, sizeof n);
        }
    }
}

std::string ClassAggregator::serialize() {
    std::string out = serialize_values();
    put_classes(out);
    return out;
}

// Another aggregator's values, coded here in their order (as merge() codes them: both give the same codes).
struct ClassAggregator::Recoding {
    std::vector<std::vector<uint32_t>> codes;  // per column, by their code: ours (0: ⊥)
    std::vector<uint32_t> value_ids;           // their sensitive value ids as ours
};

ClassAggregator::Recoding ClassAggregator::read_values(ByteReader& r) {
    if (binary_keys_) fail(ErrorKind::Internal, "a class tally merged into one keyed by binary values");
    if (r.get<uint32_t>() != qi_count_) fail(ErrorKind::InvalidParameter, "a class tally of another width");
    Recoding recoding;
    recoding.codes.resize(qi_count_);
    for (std::size_t i = 0; i < qi_count_; ++i) {
        uint32_t n = r.get<uint32_t>();
        r.need(std::size_t(n) * sizeof(uint32_t));  // each value takes at least its length: nothing sized by a lie
        recoding.codes[i].reserve(std::size_t(n) + 1);
        recoding.codes[i].push_back(0);
        for (uint32_t v = 0; v < n; ++v) recoding.codes[i].push_back(code(i, r.bytes(r.get<uint32_t>()), nullptr));
    }
    read_sensitive(r, "a class tally", [&](uint32_t, bool present, std::string_view text) {
        recoding.value_ids.push_back(table_.intern(present ? Value(text) : Value()));
    });
    return recoding;
}

void ClassAggregator::merge_classes(Recoding& recoding, ByteReader& r) {
    const uint32_t m = static_cast<uint32_t>(recoding.value_ids.size());
    uint64_t classes = r.get<uint64_t>();
    std::vector<uint32_t> row(record_words_);
    for (uint64_t k = 0; k < classes; ++k) {
        for (std::size_t i = 0; i < qi_count_; ++i) {
            uint32_t c = r.get<uint32_t>();
            if (c >= recoding.codes[i].size())
                fail(ErrorKind::InvalidParameter, "a class tally's class has an unknown value");
            row[i] = recoding.codes[i][c];
        }
        uint32_t cells = r.get<uint32_t>();
        if (cells == 0) fail(ErrorKind::InvalidParameter, "a class tally's class is empty");
        Partition& p = partitions_[partition_of(row.data())];
        const uint32_t id = find_class(p, row.data());
        for (uint32_t c = 0; c < cells; ++c) {
            uint32_t v = r.get<uint32_t>();
            int64_t count = r.get<int64_t>();
            if (v >= m || count <= 0) fail(ErrorKind::InvalidParameter, "a class tally's count is malformed");
            // Checked before adding: a cell's count is at most the rows in all, so bounding
            // those keeps every cell within a bigint too.
            uint64_t total;
            if (__builtin_add_overflow(rows_, static_cast<uint64_t>(count), &total) ||
                total > static_cast<uint64_t>(INT64_MAX))
                fail(ErrorKind::ProgramLimit, "the release counts more than 2^63 - 1 rows");
            rows_ = total;
            add_cell(p, id, recoding.value_ids[v], count);
        }
    }
}

void ClassAggregator::merge_serialized(std::string_view bytes) {
    ByteReader r{bytes, "a class tally"};
    Recoding recoding = read_values(r);
    merge_classes(recoding, r);
    if (!r.in.empty()) fail(ErrorKind::InvalidParameter, "a class tally's byte form has trailing bytes");
}

void ClassAggregator::merge(ClassAggregator& other) {
    if (binary_keys_) fail(ErrorKind::Internal, "a class tally merged into one keyed by binary values");
    if (other.qi_count_ != qi_count_) fail(ErrorKind::InvalidParameter, "a class tally of another width");
    other.fold_all();
    std::vector<std::vector<uint32_t>> recode(qi_count_);
    for (std::size_t i = 0; i < qi_count_; ++i) {
        recode[i].push_back(0);
        uint64_t start = 0;
        for (uint64_t end : other.text_ends_[i]) {
            recode[i].push_back(code(i, std::string_view(other.texts_[i].data() + start, end - start), nullptr));
            start = end;
        }
    }
    std::vector<uint32_t> value_ids;
    for (const auto& v : other.table_.values()) value_ids.push_back(table_.intern(v ? Value(*v) : Value()));
    std::vector<uint32_t> row(record_words_);
    for (const Partition& q : other.partitions_)
        for (uint32_t id = 0; id < q.first.size(); ++id) {
            for (std::size_t i = 0; i < qi_count_; ++i) row[i] = recode[i][q.keys[std::size_t(id) * qi_count_ + i]];
            Partition& p = partitions_[partition_of(row.data())];
            for (uint32_t c = q.first[id]; c != UINT32_MAX; c = q.cells[c].next) {
                row[qi_count_] = value_ids[q.cells[c].value];
                add_class_row(p, row.data(), q.cells[c].count);
            }
        }
    rows_ += other.rows_;
}

}  // namespace privrisk
