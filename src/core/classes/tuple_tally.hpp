// Distinct tuples with their multiplicities, read from a table in one pass.
//
// CodeTuples counts tuples of small integer codes. TupleTally adds the coding:
// per column, each distinct value (by its key bytes, the caller's binary form)
// gets a code, 0 being NULL, and keeps its text. A tally is mergeable and has a
// byte form, so parallel workers can each count part of a table and the leader
// add them up: the state of the tuple_tally aggregate through which
// identification reads a dictionary (docs/dtrisk.md).
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

#include "common/flat_index.hpp"

namespace privrisk {

// A tuple of codes as a FlatIndex key. Three or four codes under 2^16 are
// packed into one 8-byte word, which the index resolves inside its slot: one
// cache miss per lookup instead of two on a large table (141 instead of 206 ns
// per row for 10M four-code rows). Other tuples use their codes' bytes (12+
// bytes, so the two forms never clash). `word` holds the packed form.
inline std::string_view tuple_key(const uint32_t* c, std::size_t width, uint64_t* word) {
    if (width == 3 || width == 4) {
        uint64_t w = 0;
        bool fits = true;
        for (std::size_t j = 0; j < width; ++j) {
            fits = fits && c[j] < 65536;
            w |= uint64_t(c[j] & 0xFFFF) << (16 * j);
        }
        if (fits) {
            *word = w;
            return std::string_view(reinterpret_cast<const char*>(word), sizeof *word);
        }
    }
    return std::string_view(reinterpret_cast<const char*>(c), width * sizeof(uint32_t));
}

class CodeTuples {
public:
    CodeTuples(std::pmr::memory_resource* mr, std::size_t width) : width_(width), index_(mr), codes_(mr), times_(mr) {}

    // The tuple's id (equal tuples share it), after adding `times` to its count.
    // Counts accumulate in the index's slots (one memory access per row on a large
    // table: 2× faster than a separate array) until times() reads them.
    uint32_t add(const uint32_t* codes, int64_t times) {
        uint64_t word, spilled;
        const bool fits = times >= 0 && times <= int64_t(UINT32_MAX);  // in a slot's counter
        uint32_t i = index_.count(tuple_key(codes, width_, &word), fits ? static_cast<uint32_t>(times) : 0, &spilled);
        if (i == times_.size()) {
            codes_.insert(codes_.end(), codes, codes + width_);
            times_.push_back(0);
        }
        if (!fits) times_[i] += times;
        if (spilled) times_[i] += static_cast<int64_t>(spilled);  // rare: leaves times_ out of cache
        pending_ = true;
        return i;
    }
    void reserve(std::size_t tuples) {
        index_.reserve(tuples);
        codes_.reserve(tuples * width_);
        times_.reserve(tuples);
    }
    std::size_t width() const { return width_; }
    std::size_t size() const { return times_.size(); }
    const uint32_t* tuple(std::size_t i) const { return codes_.data() + i * width_; }
    int64_t times(std::size_t i) const {
        if (pending_) {
            index_.drain_counters([this](uint32_t id, uint32_t n) { times_[id] += n; });
            pending_ = false;
        }
        return times_.at(i);
    }

private:
    std::size_t width_;
    mutable FlatIndex index_;  // mutable: times() moves the slots' counts into times_
    std::pmr::vector<uint32_t> codes_;
    mutable std::pmr::vector<int64_t> times_;
    mutable bool pending_ = false;
};

class TupleTally {
public:
    TupleTally(TupleTally&&) = default;
    TupleTally(std::pmr::memory_resource* mr, std::size_t width);

    // Column j's code for a non-NULL value by its key bytes (≥ 1). When the value
    // is new, *added is set and the caller gives its text with set_text().
    uint32_t code(std::size_t j, std::string_view key, bool* added) {
        Column& c = columns_[j];
        uint32_t i = c.index.find_or_add(key, added);
        if (*added) {
            c.keys.insert(c.keys.end(), key.begin(), key.end());
            c.key_end.push_back(c.keys.size());
            c.text_end.push_back(c.texts.size());
        }
        return i + 1;
    }
    void set_text(std::size_t j, std::string_view text);  // of the value coded last in column j
    // A tuple of codes, `times` rows. Tuples that pack into one word are only
    // appended to a buffer here (see "Counting by sorting" below); others go to a hash table.
    void add(const uint32_t* codes, int64_t times = 1) {
        rows_ += times;
        uint64_t word;
        if (!pack(codes, &word)) {
            unpacked_.add(codes, times);
        } else if (times == 1) {
            rows_buffer_.push_back(word);
            if (rows_buffer_.size() >= buffered_rows_) compact();
        } else {
            weighted_.push_back({word, times});
            if (weighted_.size() >= buffered_rows_) compact();
        }
    }

    std::size_t width() const { return columns_.size(); }
    int64_t rows() const { return rows_; }
    // Rows waiting before they are counted (kBufferedRows by default): a caller with a memory
    // bound gives fewer, so the buffer and its sort's other half take a share of the bound.
    void set_buffered_rows(std::size_t rows) { buffered_rows_ = std::clamp<std::size_t>(rows, 1024, kBufferedRows); }
    std::size_t tuples() const {
        compact();
        return distinct_.size() + unpacked_.size();
    }

    // Byte form (native byte order: it only travels between processes of one server).
    std::string serialize() const;
    // Adds a tally in byte form (from serialize(); anything else is an error).
    void merge_serialized(std::string_view bytes);
    // Reads a tally's byte form: on_value(j, code, key, text) for every non-NULL
    // value of every column, then on_tuples(n) once and on_tuple(codes, times)
    // for every distinct tuple.
    using ValueCallback = std::function<void(std::size_t, uint32_t, std::string_view, std::string_view)>;
    static void read(std::string_view bytes, const ValueCallback& on_value,
                     const std::function<void(const uint32_t*, int64_t)>& on_tuple,
                     const std::function<void(uint64_t)>& on_tuples = nullptr);

private:
    struct Column {
        FlatIndex index;
        std::pmr::vector<char> keys, texts;
        std::pmr::vector<std::size_t> key_end, text_end;  // per value (code − 1)
        explicit Column(std::pmr::memory_resource* mr) : index(mr), keys(mr), texts(mr), key_end(mr), text_end(mr) {}
    };
    // Counting by sorting. A tuple whose codes each fit in 64/width bits (width
    // ≤ 4) packs into one word; such rows are appended to a buffer, and when 2^20
    // are waiting the buffer is radix-sorted and its runs merged into the sorted
    // distinct words with their counts. A row then costs an append instead of a
    // cache miss in a hash table as large as the distinct tuples (on 10M rows
    // with 691k distinct tuples, about half the time per row). A column whose
    // codes outgrow the bits sends its later tuples to the hash table: a tuple
    // always takes the same path, so none is counted in both. Reading a tally
    // compacts what waits (hence mutable).
    static constexpr std::size_t kBufferedRows = std::size_t(1) << 20;
    struct Weighted {
        uint64_t word;
        int64_t times;
    };
    bool pack(const uint32_t* codes, uint64_t* word) const {
        const std::size_t w = width();
        if (w > 4) return false;
        const unsigned bits = static_cast<unsigned>(64 / w);
        uint64_t out = 0;
        for (std::size_t j = 0; j < w; ++j) {
            if (bits < 32 && codes[j] >> bits) return false;
            out |= uint64_t(codes[j]) << (bits * (w - 1 - j));  // first column most significant
        }
        *word = out;
        return true;
    }
    void unpack(uint64_t word, uint32_t* codes) const;
    void compact() const;
    void merge_sorted(const std::pmr::vector<Weighted>& sorted) const;

    std::pmr::vector<Column> columns_;
    mutable std::pmr::vector<uint64_t> rows_buffer_, scratch_;  // packed rows waiting; radix sort's other half
    mutable std::pmr::vector<Weighted> weighted_;               // packed tuples with counts (merges) waiting
    mutable std::pmr::vector<Weighted> distinct_;               // counted packed tuples, ascending by word
    CodeTuples unpacked_;
    int64_t rows_ = 0;
    std::size_t buffered_rows_ = kBufferedRows;
};

}  // namespace privrisk
