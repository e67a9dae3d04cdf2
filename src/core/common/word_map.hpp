// A map from short byte strings (up to 7 bytes: codes, postal codes, short
// labels) to pointers, each key packed with its length into one 64-bit word:
// a lookup hashes the word and reads one 16-byte slot, where FlatIndex reads
// a slot, then an id's entry. The release scan looks up a generalized value
// per row and column this way. Memory comes from a std::pmr resource.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory_resource>
#include <string_view>
#include <vector>

#include "common/flat_index.hpp"

namespace privrisk {

template <typename T>
class WordMap {
public:
    static constexpr std::size_t kMaxKey = 7;

    explicit WordMap(std::pmr::memory_resource* mr) : slots_(16, Slot{}, mr) {}

    // The key's word; only for keys of up to kMaxKey bytes. The length sits in
    // the top byte, so keys that differ only by trailing zero bytes stay apart.
    static uint64_t word(std::string_view key) noexcept {
        return FlatIndex::small_word(key.data(), key.size()) | (uint64_t(key.size()) << 56);
    }

    // The pointer stored under `w`, or nullptr.
    T* find(uint64_t w) const noexcept {
        std::size_t mask = slots_.size() - 1;
        for (std::size_t i = spread(w) & mask;; i = (i + 1) & mask) {
            const Slot& s = slots_[i];
            if (s.value == nullptr || s.key == w) return s.value;
        }
    }

    // Stores `value` (not nullptr) under `w`, replacing what was there.
    void put(uint64_t w, T* value) {
        std::size_t mask = slots_.size() - 1;
        std::size_t i = spread(w) & mask;
        while (slots_[i].value != nullptr && slots_[i].key != w) i = (i + 1) & mask;
        if (slots_[i].value == nullptr) ++size_;
        slots_[i] = Slot{w, value};
        if (2 * size_ > slots_.size()) grow();
    }

    std::size_t size() const noexcept { return size_; }

private:
    struct Slot {
        uint64_t key;
        T* value;  // nullptr: empty
    };
    // Fibonacci hashing, folded so the low bits (the slot) depend on every key byte.
    static std::size_t spread(uint64_t w) noexcept {
        uint64_t h = w * 0x9e3779b97f4a7c15ull;
        return static_cast<std::size_t>(h ^ (h >> 29) ^ (h >> 47));
    }
    void grow() {
        std::pmr::vector<Slot> old(slots_.size() * 2, Slot{}, slots_.get_allocator());
        old.swap(slots_);
        size_ = 0;
        for (const Slot& s : old)
            if (s.value != nullptr) put(s.key, s.value);
    }
    std::pmr::vector<Slot> slots_;
    std::size_t size_ = 0;
};

}  // namespace privrisk
