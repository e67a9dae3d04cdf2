// Reading a class tally as it leaves its server (ClassAggregator::serialize_tally)
// class by class, by its codes: for a reader that codes each of its values once and
// adds its classes up itself (the class reader over shards), with no run rebuilt;
// ClassAggregator::read_tally rebuilds its run on it (audit() over shards).
#pragma once

#include <cstdint>
#include <memory_resource>
#include <string_view>
#include <vector>

#include "classes/class_aggregator.hpp"
#include "common/byte_form.hpp"
#include "common/error.hpp"

namespace privrisk {

class TallyReader {
public:
    // Checks the tag, the width and each column's values; those are kept in `mr` (a
    // dictionary costs more here than in the tally's bytes, which must outlive this).
    TallyReader(std::string_view bytes, std::size_t width, std::pmr::memory_resource* mr);
    std::size_t width() const { return width_; }
    // The sensitive values, as ClassAggregator::serialize_sensitive wrote them.
    std::string_view sensitive() const { return sensitive_; }
    // on_value(present, text) for each of them, by id; each and the end checked.
    template <typename F>
    void for_each_sensitive(F&& on_value) const;
    // Column i's values by code - 1.
    const std::pmr::vector<std::string_view>& values(std::size_t column) const { return values_[column]; }
    uint64_t classes() const { return classes_; }
    // on_class(codes, cells) for each class in run order: codes[i] is 0 for ⊥, else the
    // index of its value + 1 (checked); cells as a run has them (for_each_run_cell checks
    // them). Then the end is checked.
    template <typename F>
    void for_each_class(F&& on_class) const;

private:
    std::size_t width_;
    std::string_view sensitive_, body_;
    std::vector<std::pmr::vector<std::string_view>> values_;
    uint64_t classes_ = 0;
};

template <typename F>
void TallyReader::for_each_sensitive(F&& on_value) const {
    ByteReader r{sensitive_, "a class tally"};
    ClassAggregator::read_sensitive(r, "a class tally",
                                    [&](uint32_t, bool present, std::string_view text) { on_value(present, text); });
    if (!r.in.empty()) fail(ErrorKind::InvalidParameter, "a class tally's sensitive values have trailing bytes");
}

template <typename F>
void TallyReader::for_each_class(F&& on_class) const {
    ByteReader in{body_, "a class tally"};
    std::vector<uint32_t> codes(width_);
    for (uint64_t c = 0; c < classes_; ++c) {
        for (std::size_t i = 0; i < width_; ++i) {
            const uint64_t code = in.varint();
            if (code > values_[i].size())
                fail(ErrorKind::InvalidParameter, "a class tally's class has an unknown value");
            codes[i] = static_cast<uint32_t>(code);
        }
        const std::string_view cells = in.bytes(in.varint());
        on_class(static_cast<const uint32_t*>(codes.data()), cells);
    }
    if (!in.in.empty()) fail(ErrorKind::InvalidParameter, "a class tally's byte form has trailing bytes");
}

}  // namespace privrisk
