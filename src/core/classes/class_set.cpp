#include "classes/class_set.hpp"

#include <cstring>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

ClassSet::ClassSet(std::pmr::memory_resource* mr) : arena_(mr), classes_(mr) {}

void ClassSet::add(std::string_view encoded, int64_t times) {
    auto it = classes_.find(encoded);
    if (it != classes_.end()) {
        if (__builtin_add_overflow(it->second, times, &it->second))
            fail(ErrorKind::ProgramLimit, "more than 2^63 - 1 classes");
        return;
    }
    char* copy = static_cast<char*>(arena_.allocate(encoded.size(), 1));
    std::memcpy(copy, encoded.data(), encoded.size());
    classes_.emplace(std::string_view(copy, encoded.size()), times);
}

void ClassSet::merge(const ClassSet& other) {
    for (auto& [h, times] : other.classes_) add(h, times);
}

std::string ClassSet::serialize() const {
    std::string out;
    auto put = [&](uint64_t v, int bytes) {
        for (int s = (bytes - 1) * 8; s >= 0; s -= 8) out += static_cast<char>((v >> s) & 0xff);
    };
    put(classes_.size(), 4);
    for (auto& [h, times] : classes_) {
        put(static_cast<uint64_t>(times), 8);
        put(h.size(), 4);
        out += h;
    }
    return out;
}

// The bytes may come from anywhere: each class is validated as a hist (its
// bytes are read unchecked later) and its multiplicity must be at least 1.
void ClassSet::add_serialized(std::string_view bytes) {
    if (bytes.size() < 4) fail(ErrorKind::InvalidParameter, "class set: truncated");
    uint32_t n = HistogramView::read_u32(bytes.data());
    std::size_t pos = 4;
    for (uint32_t i = 0; i < n; ++i) {
        if (bytes.size() - pos < 12) fail(ErrorKind::InvalidParameter, "class set: truncated");
        int64_t times = HistogramView::read_i64(bytes.data() + pos);
        uint32_t len = HistogramView::read_u32(bytes.data() + pos + 8);
        pos += 12;
        if (bytes.size() - pos < len) fail(ErrorKind::InvalidParameter, "class set: truncated");
        if (times < 1)
            fail(ErrorKind::InvalidParameter, "class set: a class counted " + std::to_string(times) + " times");
        std::string_view encoded = bytes.substr(pos, len);
        validate_histogram(encoded, false);
        add(encoded, times);
        pos += len;
    }
    if (pos != bytes.size()) fail(ErrorKind::InvalidParameter, "class set: trailing bytes");
}

ContingencyTable ClassSet::table() const {
    ContingencyTable t;
    for (auto& [h, times] : classes_) t.add_class(HistogramView(h), times);
    t.canonicalize();
    return t;
}

}  // namespace privrisk
