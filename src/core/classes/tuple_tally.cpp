#include "classes/tuple_tally.hpp"

#include <algorithm>
#include <cstring>

#include "common/byte_form.hpp"
#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

TupleTally::TupleTally(std::pmr::memory_resource* mr, std::size_t width)
    : columns_(mr), rows_buffer_(mr), scratch_(mr), weighted_(mr), distinct_(mr), unpacked_(mr, width) {
    columns_.reserve(width);
    for (std::size_t j = 0; j < width; ++j) columns_.emplace_back(mr);
}

void TupleTally::unpack(uint64_t word, uint32_t* codes) const {
    const std::size_t w = width();
    if (w == 1) {
        codes[0] = static_cast<uint32_t>(word);
        return;
    }
    const unsigned bits = static_cast<unsigned>(64 / w);
    for (std::size_t j = w; j-- > 0; word >>= bits)
        codes[j] = static_cast<uint32_t>(word & ((uint64_t(1) << bits) - 1));
}

namespace {

// LSD radix sort by the bytes of key(x), skipping the bytes on which all keys
// agree (codes use few bits: most of a packed word's bytes are constant).
template <typename T, typename Key>
void radix_sort(std::pmr::vector<T>& v, std::pmr::vector<T>& scratch, Key key) {
    if (v.empty()) return;
    std::size_t counts[8][256] = {};
    for (const T& x : v)
        for (int b = 0; b < 8; ++b) ++counts[b][(key(x) >> (8 * b)) & 0xFF];
    scratch.resize(v.size());
    for (int b = 0; b < 8; ++b) {
        std::size_t* c = counts[b];
        if (c[(key(v.front()) >> (8 * b)) & 0xFF] == v.size()) continue;  // one value: nothing to order
        std::size_t offset = 0;
        for (int d = 0; d < 256; ++d) {
            std::size_t n = c[d];
            c[d] = offset;
            offset += n;
        }
        for (const T& x : v) scratch[c[(key(x) >> (8 * b)) & 0xFF]++] = x;
        v.swap(scratch);
    }
}

}  // namespace

void TupleTally::compact() const {
    if (!rows_buffer_.empty()) {
        radix_sort(rows_buffer_, scratch_, [](uint64_t x) { return x; });
        std::pmr::vector<Weighted> runs(distinct_.get_allocator());  // runs of equal rows, ascending
        for (std::size_t i = 0; i < rows_buffer_.size();) {
            std::size_t k = i;
            while (k < rows_buffer_.size() && rows_buffer_[k] == rows_buffer_[i]) ++k;
            runs.push_back({rows_buffer_[i], static_cast<int64_t>(k - i)});
            i = k;
        }
        rows_buffer_.clear();
        merge_sorted(runs);
    }
    if (!weighted_.empty()) {
        std::pmr::vector<Weighted> scratch(weighted_.get_allocator());
        radix_sort(weighted_, scratch, [](const Weighted& x) { return x.word; });
        merge_sorted(weighted_);
        weighted_.clear();
    }
}

// Merges tuples sorted by word (equal words allowed) into distinct_.
void TupleTally::merge_sorted(const std::pmr::vector<Weighted>& sorted) const {
    std::pmr::vector<Weighted> merged(distinct_.get_allocator());
    merged.reserve(distinct_.size() + sorted.size());
    std::size_t d = 0;
    for (const Weighted& x : sorted) {
        while (d < distinct_.size() && distinct_[d].word <= x.word) merged.push_back(distinct_[d++]);
        if (!merged.empty() && merged.back().word == x.word) merged.back().times += x.times;
        else merged.push_back(x);
    }
    merged.insert(merged.end(), distinct_.begin() + static_cast<std::ptrdiff_t>(d), distinct_.end());
    distinct_.swap(merged);
}

void TupleTally::set_text(std::size_t j, std::string_view text) {
    Column& c = columns_[j];
    c.texts.insert(c.texts.end(), text.begin(), text.end());
    c.text_end.back() = c.texts.size();
}

std::string TupleTally::serialize() const {
    std::string out;
    put_bytes<uint32_t>(out, static_cast<uint32_t>(width()));
    for (const Column& c : columns_) {
        put_bytes<uint32_t>(out, static_cast<uint32_t>(c.key_end.size()));
        for (std::size_t v = 0; v < c.key_end.size(); ++v) {
            const std::size_t k0 = v ? c.key_end[v - 1] : 0, t0 = v ? c.text_end[v - 1] : 0;
            put_bytes<uint32_t>(out, static_cast<uint32_t>(c.key_end[v] - k0));
            out.append(c.keys.data() + k0, c.key_end[v] - k0);
            put_bytes<uint32_t>(out, static_cast<uint32_t>(c.text_end[v] - t0));
            out.append(c.texts.data() + t0, c.text_end[v] - t0);
        }
    }
    put_bytes<uint64_t>(out, tuples());
    std::vector<uint32_t> codes(width());
    for (const Weighted& x : distinct_) {
        unpack(x.word, codes.data());
        out.append(reinterpret_cast<const char*>(codes.data()), width() * sizeof(uint32_t));
        put_bytes<int64_t>(out, x.times);
    }
    for (std::size_t i = 0; i < unpacked_.size(); ++i) {
        out.append(reinterpret_cast<const char*>(unpacked_.tuple(i)), width() * sizeof(uint32_t));
        put_bytes<int64_t>(out, unpacked_.times(i));
    }
    return out;
}

void TupleTally::read(std::string_view bytes, const ValueCallback& on_value,
                      const std::function<void(const uint32_t*, int64_t)>& on_tuple,
                      const std::function<void(uint64_t)>& on_tuples) {
    ByteReader r{bytes, "a tuple tally"};
    const uint32_t width = r.get<uint32_t>();
    // The bytes may come from anywhere: every count is sized against the bytes
    // left (a column needs 4, a value 8, a tuple 4 per column and 8) before use.
    if (width == 0 || width > r.in.size() / sizeof(uint32_t))
        fail(ErrorKind::InvalidParameter, "a tuple tally's byte form has an impossible width");
    std::vector<uint32_t> values(width);
    for (uint32_t j = 0; j < width; ++j) {
        values[j] = r.get<uint32_t>();
        if (values[j] > r.in.size() / (2 * sizeof(uint32_t)))
            fail(ErrorKind::InvalidParameter, "a tuple tally's byte form is truncated");
        for (uint32_t v = 1; v <= values[j]; ++v) {
            std::string_view key = r.bytes(r.get<uint32_t>());
            std::string_view text = r.bytes(r.get<uint32_t>());
            on_value(j, v, key, text);
        }
    }
    const uint64_t n = r.get<uint64_t>();
    if (n > r.in.size() / (uint64_t{width} * sizeof(uint32_t) + sizeof(int64_t)))
        fail(ErrorKind::InvalidParameter, "a tuple tally's byte form is truncated");
    if (on_tuples) on_tuples(n);
    std::vector<uint32_t> codes(width);
    for (uint64_t i = 0; i < n; ++i) {
        for (uint32_t j = 0; j < width; ++j) {
            codes[j] = r.get<uint32_t>();
            if (codes[j] > values[j])
                fail(ErrorKind::InvalidParameter, "a tuple tally's byte form names an unknown value");
        }
        const int64_t times = r.get<int64_t>();
        if (times < 1) fail(ErrorKind::InvalidParameter, "a tuple tally's byte form has a count below 1");
        on_tuple(codes.data(), times);
    }
    if (!r.in.empty()) fail(ErrorKind::InvalidParameter, "a tuple tally's byte form has trailing bytes");
}

void TupleTally::merge_serialized(std::string_view bytes) {
    if (ByteReader{bytes, "a tuple tally"}.get<uint32_t>() != width())
        fail(ErrorKind::InvalidParameter, "a tuple tally of another width");
    std::vector<std::vector<uint32_t>> ours(width(), std::vector<uint32_t>{0});  // their code -> our code
    std::vector<uint32_t> mapped(width());
    read(
        bytes,
        [&](std::size_t j, uint32_t, std::string_view key, std::string_view text) {
            bool added;
            ours[j].push_back(code(j, key, &added));
            if (added) set_text(j, text);
        },
        [&](const uint32_t* codes, int64_t times) {
            // Every count is at most the rows in all: bounding those bounds each tuple's sum too
            // (a hand-made or hostile shard's tally overflowed it: found by scripts/fuzz).
            int64_t total;
            if (__builtin_add_overflow(rows_, times, &total))
                fail(ErrorKind::ProgramLimit, "a tuple tally would count more rows than a bigint holds");
            for (std::size_t j = 0; j < width(); ++j) mapped[j] = ours[j][codes[j]];
            add(mapped.data(), times);
        });
}

}  // namespace privrisk
