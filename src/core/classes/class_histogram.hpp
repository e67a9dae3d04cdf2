// The sensitive histogram of one equivalence class (docs/glossary.md, docs/measures.md): counts per
// sensitive value, ⊥ (NULL) counted apart. Values are compared by their text.
//
// Encoded form (the payload of the SQL type privrisk.hist, and its binary
// send/receive form), big-endian:
//   u8 version = 1, u8 flags = 0, u16 zero, u32 nvalues, i64 bottom,
//   nvalues × (i64 count, u32 length, bytes), values strictly increasing bytewise.
// Text form: a JSON array of [value, count] pairs, ⊥ as null, e.g.
//   [["Sales", 2], ["Tech-support", 1], [null, 1]]
#pragma once

#include <cstdint>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

namespace privrisk {

// Reads an encoded histogram without copying it. The bytes must have passed
// validate_histogram (or come from encode_histogram).
class HistogramView {
public:
    explicit HistogramView(std::string_view bytes);
    uint32_t distinct() const { return nvalues_; }  // values other than ⊥
    int64_t bottom() const { return bottom_; }      // count of ⊥
    int64_t size() const;                           // all rows of the class
    // Calls f(value, count) for each value in byte order (⊥ not included).
    template <typename F>
    void for_each(F&& f) const {
        const char* p = values_;
        for (uint32_t i = 0; i < nvalues_; ++i) {
            int64_t count = read_i64(p);
            uint32_t len = read_u32(p + 8);
            f(std::string_view(p + 12, len), count);
            p += 12 + len;
        }
    }
    static int64_t read_i64(const char* p);
    static uint32_t read_u32(const char* p);

private:
    uint32_t nvalues_;
    int64_t bottom_;
    const char* values_;
};

// Checks encoded bytes from an untrusted source; an error says what is wrong.
// `utf8` also checks every value is valid UTF-8.
void validate_histogram(std::string_view bytes, bool utf8);

// Text form <-> encoded form.
std::string histogram_to_text(std::string_view encoded);
std::string histogram_from_text(std::string_view text, bool utf8 = true);  // utf8: values must be UTF-8

// Counts the rows of one class: the state of the level-1 aggregate. A plain
// struct over one contiguous block (entries appended unsorted, plus an
// open-addressing index once a class has many values), so thousands of groups
// cost little. Memory comes from the resource passed to each call, so the
// PostgreSQL adapter can place it in an aggregate's memory context, where it
// is freed with the context; release() frees it explicitly otherwise.
struct HistogramBuilder {
    char* block = nullptr;      // entries: i64 count, u32 length, bytes
    uint32_t* slots = nullptr;  // index of entry offsets + 1 (0 = empty), when nvalues > kLinearLimit
    uint32_t used = 0, capacity = 0, nvalues = 0, nslots = 0;
    int64_t bottom = 0, size = 0;

    void add(std::string_view value, int64_t count, std::pmr::memory_resource* mr);
    void add_bottom(int64_t count);
    void add_encoded(std::string_view encoded, std::pmr::memory_resource* mr);  // merge a validated histogram
    void merge(const HistogramBuilder& other, std::pmr::memory_resource* mr);
    std::string encode() const;  // canonical: sorted, unique
    void release(std::pmr::memory_resource* mr);

    static constexpr uint32_t kLinearLimit = 8;  // small classes: a linear scan beats hashing

private:
    char* find(std::string_view value) const;
    void grow(std::size_t need, std::pmr::memory_resource* mr);
    void reindex(std::pmr::memory_resource* mr);
};
// Encodes explicit (value, count) pairs; values need not be sorted but must be unique.
std::string encode_histogram(std::vector<std::pair<std::string, int64_t>> values, int64_t bottom);

// Counts above this are refused, so sums and products over a table never overflow int64.
constexpr int64_t kMaxCount = (int64_t(1) << 62) - 1;  // the largest count or class size

}  // namespace privrisk
