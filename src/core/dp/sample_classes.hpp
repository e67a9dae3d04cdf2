// Rows counted per class (docs/dp.md), each class given as its generalized
// values' ids: the classes of a source, then of its sample. finish() keeps the
// classes with at least k rows in a random order: sorted by their values, then
// shuffled, so nothing in the output follows the order rows or classes were met
// in.
#pragma once

#include <cstdint>
#include <functional>
#include <memory_resource>
#include <vector>

#include "dp/dp_random.hpp"
#include "common/flat_index.hpp"

namespace privrisk {

class SampleClasses {
public:
    explicit SampleClasses(std::size_t width) : width_(width), index_(std::pmr::new_delete_resource()) {}

    void add(const uint32_t* ids, int64_t rows = 1) {
        auto key = std::string_view(reinterpret_cast<const char*>(ids), width_ * sizeof(uint32_t));
        uint32_t c = index_.find_or_add(key);
        if (c == rows_.size()) {
            rows_.push_back(0);
            ids_.insert(ids_.end(), ids, ids + width_);
        }
        rows_[c] += rows;
        total_ += rows;
    }

    struct Released {
        std::vector<uint32_t> classes;  // kept classes, shuffled
        int64_t rows = 0;               // rows in kept classes
    };
    // `before(a, b)`: class a's values come before class b's.
    Released finish(int64_t k, const DpRandom& random, const std::function<bool(uint32_t, uint32_t)>& before) const;

    std::size_t width() const { return width_; }
    std::size_t classes() const { return rows_.size(); }
    int64_t total() const { return total_; }
    int64_t rows(uint32_t c) const { return rows_[c]; }
    const uint32_t* ids(uint32_t c) const { return ids_.data() + std::size_t(c) * width_; }

private:
    std::size_t width_;
    FlatIndex index_;
    std::vector<int64_t> rows_;
    std::vector<uint32_t> ids_;
    int64_t total_ = 0;
};

}  // namespace privrisk
