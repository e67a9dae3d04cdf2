#include "classes/class_histogram.hpp"

#include <algorithm>
#include <cstring>
#include <functional>

#include "hierarchy/csv.hpp"
#include "common/error.hpp"
#include "common/json_text.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

namespace {

constexpr std::size_t kHeader = 16;  // version, flags, zero, nvalues, bottom
constexpr uint32_t kEmpty = UINT32_MAX;

void put_u32(std::string& out, uint32_t v) {
    for (int s = 24; s >= 0; s -= 8) out += static_cast<char>((v >> s) & 0xff);
}
void put_i64(std::string& out, int64_t v) {
    uint64_t u = static_cast<uint64_t>(v);
    for (int s = 56; s >= 0; s -= 8) out += static_cast<char>((u >> s) & 0xff);
}

[[noreturn]] void bad_hist(const std::string& what) { fail(ErrorKind::BadFormat, "invalid hist: " + what); }

void check_count(int64_t count, int64_t& total) {
    if (count < 1 || count > kMaxCount) bad_hist("count " + std::to_string(count) + " is not between 1 and 2^62 - 1");
    if (total > kMaxCount - count) bad_hist("the counts add up to more than 2^62 - 1");
    total += count;
}

}  // namespace

int64_t HistogramView::read_i64(const char* p) {
    uint64_t u = 0;
    for (int i = 0; i < 8; ++i) u = (u << 8) | static_cast<unsigned char>(p[i]);
    return static_cast<int64_t>(u);
}

uint32_t HistogramView::read_u32(const char* p) {
    uint32_t u = 0;
    for (int i = 0; i < 4; ++i) u = (u << 8) | static_cast<unsigned char>(p[i]);
    return u;
}

HistogramView::HistogramView(std::string_view bytes)
    : nvalues_(read_u32(bytes.data() + 4)), bottom_(read_i64(bytes.data() + 8)), values_(bytes.data() + kHeader) {}

int64_t HistogramView::size() const {
    int64_t n = bottom_;
    for_each([&](std::string_view, int64_t c) { n += c; });
    return n;
}

void validate_histogram(std::string_view bytes, bool utf8) {
    if (bytes.size() < kHeader) bad_hist("shorter than its header");
    if (bytes[0] != 1) bad_hist("unknown version " + std::to_string(static_cast<unsigned char>(bytes[0])));
    if (bytes[1] != 0 || bytes[2] != 0 || bytes[3] != 0) bad_hist("reserved header bytes are not zero");
    uint32_t n = HistogramView::read_u32(bytes.data() + 4);
    int64_t bottom = HistogramView::read_i64(bytes.data() + 8);
    int64_t total = 0;
    if (bottom < 0 || bottom > kMaxCount) bad_hist("the count of NULL is out of range");
    total = bottom;
    std::size_t pos = kHeader;
    std::string_view previous;
    for (uint32_t i = 0; i < n; ++i) {
        if (bytes.size() - pos < 12) bad_hist("value " + std::to_string(i + 1) + " runs past the end");
        check_count(HistogramView::read_i64(bytes.data() + pos), total);
        uint32_t len = HistogramView::read_u32(bytes.data() + pos + 8);
        pos += 12;
        if (bytes.size() - pos < len) bad_hist("value " + std::to_string(i + 1) + " runs past the end");
        std::string_view value = bytes.substr(pos, len);
        if (value.find('\0') != std::string_view::npos) bad_hist("a value contains a zero byte");
        if (utf8 && !valid_utf8(value)) bad_hist("a value is not valid UTF-8");
        if (i > 0 && !(previous < value)) bad_hist("values are not strictly increasing");
        previous = value;
        pos += len;
    }
    if (pos != bytes.size()) bad_hist("trailing bytes after the last value");
    if (total == 0) bad_hist("a class histogram counts at least one row");
}

namespace {

// The encoded form of (value, count) pairs sorted by value; a repeated value is an error.
template <typename Pairs>
std::string write_encoded(const Pairs& sorted, int64_t bottom) {
    std::size_t size = kHeader;
    for (const auto& pair : sorted) size += 12 + std::string_view(pair.first).size();
    std::string out;
    out.reserve(size);
    out += static_cast<char>(1);
    out += std::string(3, '\0');
    put_u32(out, static_cast<uint32_t>(sorted.size()));
    put_i64(out, bottom);
    for (std::size_t i = 0; i < sorted.size(); ++i) {
        std::string_view value = sorted[i].first;
        if (i > 0 && value == std::string_view(sorted[i - 1].first))
            bad_hist("value " + quote_value(value) + " appears twice");
        put_i64(out, sorted[i].second);
        put_u32(out, static_cast<uint32_t>(value.size()));
        out += value;
    }
    return out;
}

}  // namespace

std::string encode_histogram(std::vector<std::pair<std::string, int64_t>> values, int64_t bottom) {
    std::sort(values.begin(), values.end());
    return write_encoded(values, bottom);
}

// ---- text form --------------------------------------------------------------

namespace {

void append_utf8(std::string& out, uint32_t cp) {
    if (cp < 0x80) {
        out += static_cast<char>(cp);
    } else if (cp < 0x800) {
        out += static_cast<char>(0xC0 | (cp >> 6));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else if (cp < 0x10000) {
        out += static_cast<char>(0xE0 | (cp >> 12));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    } else {
        out += static_cast<char>(0xF0 | (cp >> 18));
        out += static_cast<char>(0x80 | ((cp >> 12) & 0x3F));
        out += static_cast<char>(0x80 | ((cp >> 6) & 0x3F));
        out += static_cast<char>(0x80 | (cp & 0x3F));
    }
}

class TextReader {
public:
    explicit TextReader(std::string_view s) : s_(s) {}

    void skip_space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    bool at_end() {
        skip_space();
        return i_ == s_.size();
    }
    bool peek(char c) {
        skip_space();
        return i_ < s_.size() && s_[i_] == c;
    }
    void expect(char c) {
        if (!peek(c)) error(std::string("expected '") + c + "'");
        ++i_;
    }
    bool literal(std::string_view word) {
        skip_space();
        if (s_.substr(i_, word.size()) != word) return false;
        i_ += word.size();
        return true;
    }
    std::string string() {
        expect('"');
        std::string out;
        for (;;) {
            if (i_ >= s_.size()) error("unterminated string");
            char c = s_[i_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) error("control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (i_ >= s_.size()) error("unterminated escape");
            char e = s_[i_++];
            if (char plain = json_unescape(e)) {
                out += plain;
                continue;
            }
            switch (e) {
                case 'u': {
                    uint32_t cp = hex4();
                    if (cp >= 0xD800 && cp <= 0xDBFF) {
                        if (s_.substr(i_, 2) != "\\u") error("unpaired surrogate");
                        i_ += 2;
                        uint32_t lo = hex4();
                        if (lo < 0xDC00 || lo > 0xDFFF) error("unpaired surrogate");
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                        error("unpaired surrogate");
                    }
                    if (cp == 0) error("\\u0000 is not allowed in a value");
                    append_utf8(out, cp);
                    break;
                }
                default:
                    error(std::string("unknown escape \\") + e);
            }
        }
    }
    int64_t count() {
        skip_space();
        std::size_t start = i_;
        int64_t v = 0;
        while (i_ < s_.size() && s_[i_] >= '0' && s_[i_] <= '9') {
            if (v > (kMaxCount - (s_[i_] - '0')) / 10) error("count is larger than 2^62 - 1");
            v = v * 10 + (s_[i_++] - '0');
        }
        if (i_ == start) error("expected a count");
        if (v < 1) error("counts must be positive");
        return v;
    }
    [[noreturn]] void error(const std::string& what) { bad_hist(what + " at character " + std::to_string(i_ + 1)); }

private:
    uint32_t hex4() {
        if (s_.size() - i_ < 4) error("short \\u escape");
        uint32_t v = 0;
        for (int k = 0; k < 4; ++k) {
            char c = s_[i_++];
            v <<= 4;
            if (c >= '0' && c <= '9') v |= c - '0';
            else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
            else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
            else error("bad \\u escape");
        }
        return v;
    }
    std::string_view s_;
    std::size_t i_ = 0;
};

}  // namespace

std::string histogram_to_text(std::string_view encoded) {
    HistogramView h(encoded);
    std::string out = "[";
    bool first = true;
    h.for_each([&](std::string_view value, int64_t count) {
        out += first ? "[" : ", [";
        first = false;
        append_json_string(out, value);
        out += ", " + std::to_string(count) + "]";
    });
    if (h.bottom() > 0) out += std::string(first ? "" : ", ") + "[null, " + std::to_string(h.bottom()) + "]";
    out += "]";
    return out;
}

std::string histogram_from_text(std::string_view text, bool utf8) {
    if (utf8 && !valid_utf8(text)) bad_hist("invalid UTF-8");
    TextReader r(text);
    std::vector<std::pair<std::string, int64_t>> values;
    int64_t bottom = 0, total = 0;
    bool seen_bottom = false;
    r.expect('[');
    if (!r.peek(']')) {
        for (;;) {
            r.expect('[');
            if (r.literal("null")) {
                if (seen_bottom) r.error("null appears twice");
                seen_bottom = true;
                r.expect(',');
                bottom = r.count();
                check_count(bottom, total);
            } else {
                std::string value = r.string();
                r.expect(',');
                int64_t c = r.count();
                check_count(c, total);
                values.emplace_back(std::move(value), c);
            }
            r.expect(']');
            if (r.peek(']')) break;
            r.expect(',');
        }
    }
    r.expect(']');
    if (!r.at_end()) r.error("trailing characters");
    if (total == 0) bad_hist("a class histogram counts at least one row");
    return encode_histogram(std::move(values), bottom);
}

// ---- builder ----------------------------------------------------------------

namespace {
constexpr std::size_t kEntryHeader = 12;
void put_i64_at(char* p, int64_t v) {
    uint64_t u = static_cast<uint64_t>(v);
    for (int i = 7; i >= 0; --i, u >>= 8) p[i] = static_cast<char>(u & 0xff);
}
void put_u32_at(char* p, uint32_t v) {
    for (int i = 3; i >= 0; --i, v >>= 8) p[i] = static_cast<char>(v & 0xff);
}
std::size_t slot_of(std::string_view value, uint32_t nslots) {
    return std::hash<std::string_view>{}(value) & (nslots - 1);
}
}  // namespace

char* HistogramBuilder::find(std::string_view value) const {
    if (slots) {
        for (std::size_t i = slot_of(value, nslots);; i = (i + 1) & (nslots - 1)) {
            if (slots[i] == 0) return nullptr;
            char* e = block + (slots[i] - 1);
            uint32_t len = HistogramView::read_u32(e + 8);
            if (len == value.size() && std::memcmp(e + kEntryHeader, value.data(), len) == 0) return e;
        }
    }
    for (char* e = block; e < block + used;) {
        uint32_t len = HistogramView::read_u32(e + 8);
        if (len == value.size() && std::memcmp(e + kEntryHeader, value.data(), len) == 0) return e;
        e += kEntryHeader + len;
    }
    return nullptr;
}

void HistogramBuilder::grow(std::size_t need, std::pmr::memory_resource* mr) {
    if (used + need <= capacity) return;
    std::size_t want = std::max<std::size_t>(64, std::size_t(capacity) * 2);
    while (want < used + need) want *= 2;
    if (want > UINT32_MAX) fail(ErrorKind::ProgramLimit, "a class histogram is larger than 4 GB");
    char* bigger = static_cast<char*>(mr->allocate(want, 8));
    if (used) std::memcpy(bigger, block, used);
    if (block) mr->deallocate(block, capacity, 8);
    block = bigger;
    capacity = static_cast<uint32_t>(want);
}

void HistogramBuilder::reindex(std::pmr::memory_resource* mr) {
    uint32_t want = 32;
    while (want < nvalues * 2) want *= 2;
    if (slots) mr->deallocate(slots, sizeof(uint32_t) * nslots, alignof(uint32_t));
    slots = static_cast<uint32_t*>(mr->allocate(sizeof(uint32_t) * want, alignof(uint32_t)));
    std::memset(slots, 0, sizeof(uint32_t) * want);
    nslots = want;
    for (char* e = block; e < block + used;) {
        uint32_t len = HistogramView::read_u32(e + 8);
        std::size_t i = slot_of(std::string_view(e + kEntryHeader, len), nslots);
        while (slots[i] != 0) i = (i + 1) & (nslots - 1);
        slots[i] = static_cast<uint32_t>(e - block) + 1;
        e += kEntryHeader + len;
    }
}

void HistogramBuilder::add(std::string_view value, int64_t count, std::pmr::memory_resource* mr) {
    if (size > kMaxCount - count) fail(ErrorKind::ProgramLimit, "a class has more than 2^62 - 1 rows");
    if (char* e = find(value)) {
        put_i64_at(e, HistogramView::read_i64(e) + count);
        size += count;
        return;
    }
    grow(kEntryHeader + value.size(), mr);
    char* e = block + used;
    put_i64_at(e, count);
    put_u32_at(e + 8, static_cast<uint32_t>(value.size()));
    std::memcpy(e + kEntryHeader, value.data(), value.size());
    used += static_cast<uint32_t>(kEntryHeader + value.size());
    ++nvalues;
    size += count;
    if (nvalues > kLinearLimit && nvalues * 2 > nslots) {
        reindex(mr);
    } else if (slots) {
        std::size_t i = slot_of(value, nslots);
        while (slots[i] != 0) i = (i + 1) & (nslots - 1);
        slots[i] = static_cast<uint32_t>(e - block) + 1;
    }
}

void HistogramBuilder::add_bottom(int64_t count) {
    if (size > kMaxCount - count) fail(ErrorKind::ProgramLimit, "a class has more than 2^62 - 1 rows");
    size += count;
    bottom += count;
}

void HistogramBuilder::add_encoded(std::string_view encoded, std::pmr::memory_resource* mr) {
    HistogramView h(encoded);
    h.for_each([&](std::string_view value, int64_t count) { add(value, count, mr); });
    if (h.bottom() > 0) add_bottom(h.bottom());
}

void HistogramBuilder::merge(const HistogramBuilder& other, std::pmr::memory_resource* mr) {
    for (const char* e = other.block; e < other.block + other.used;) {
        uint32_t len = HistogramView::read_u32(e + 8);
        add(std::string_view(e + kEntryHeader, len), HistogramView::read_i64(e), mr);
        e += kEntryHeader + len;
    }
    if (other.bottom > 0) add_bottom(other.bottom);
}

std::string HistogramBuilder::encode() const {
    std::vector<std::pair<std::string_view, int64_t>> entries;
    entries.reserve(nvalues);
    for (const char* e = block; e < block + used;) {
        uint32_t len = HistogramView::read_u32(e + 8);
        entries.emplace_back(std::string_view(e + kEntryHeader, len), HistogramView::read_i64(e));
        e += kEntryHeader + len;
    }
    std::sort(entries.begin(), entries.end());
    return write_encoded(entries, bottom);
}

void HistogramBuilder::release(std::pmr::memory_resource* mr) {
    if (block) mr->deallocate(block, capacity, 8);
    if (slots) mr->deallocate(slots, sizeof(uint32_t) * nslots, alignof(uint32_t));
    *this = HistogramBuilder();
}

}  // namespace privrisk
