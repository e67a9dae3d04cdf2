// An open-addressing index from byte strings to dense ids 0, 1, 2, …: keys are
// kept back to back in one buffer, each behind its length, and a slot holds
// (hash tag, id, key offset), so a lookup touches one slot and one key — no
// node to chase. Memory comes from a std::pmr resource.
#pragma once

#include <cstdint>
#include <cstring>
#include <memory_resource>
#include <string_view>
#include <vector>

namespace privrisk {

class FlatIndex {
public:
    explicit FlatIndex(std::pmr::memory_resource* mr) : bytes_(mr), slots_(mr) { slots_.resize(1024); }

    // The id of `key`, adding it (with the next id) when absent.
    uint32_t find_or_add(std::string_view key, bool* added = nullptr) {
        uint64_t h = hash(key);
        uint32_t tag = static_cast<uint32_t>(h >> 32) | 1;  // 0 marks an empty slot; the index uses the low bits
        std::size_t mask = slots_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            Slot& s = slots_[i];
            if (s.tag == 0) {
                if (added) *added = true;
                s = Slot{tag, size_, bytes_.size()};
                uint32_t len = static_cast<uint32_t>(key.size());
                bytes_.insert(bytes_.end(), reinterpret_cast<const char*>(&len), reinterpret_cast<const char*>(&len) + 4);
                bytes_.insert(bytes_.end(), key.begin(), key.end());
                ++size_;
                if (2 * std::size_t(size_) > slots_.size()) grow();
                return size_ - 1;
            }
            if (s.tag == tag && same(key_at(s.offset), key)) {
                if (added) *added = false;
                return s.id;
            }
        }
    }
    std::size_t size() const { return size_; }

    // FNV-1a over 8-byte words, then a final mix: fast on short keys, well spread.
    static uint64_t hash(std::string_view key) {
        uint64_t h = 0xcbf29ce484222325ull ^ key.size();
        std::size_t i = 0;
        for (; i + 8 <= key.size(); i += 8) {
            uint64_t w;
            std::memcpy(&w, key.data() + i, 8);
            h = (h ^ w) * 0x100000001b3ull;
            h ^= h >> 29;
        }
        uint64_t tail = 0;
        std::memcpy(&tail, key.data() + i, key.size() - i);
        h = (h ^ tail) * 0x100000001b3ull;
        h ^= h >> 32;
        h *= 0xd6e8feb86659fd93ull;
        h ^= h >> 32;
        return h;
    }

private:
    // Keys are short labels: a byte loop beats a call to memcmp.
    static bool same(std::string_view a, std::string_view b) {
        if (a.size() != b.size()) return false;
        if (a.size() > 32) return a == b;
        for (std::size_t i = 0; i < a.size(); ++i)
            if (a[i] != b[i]) return false;
        return true;
    }
    struct Slot {
        uint32_t tag;  // high half of the hash, low bit set
        uint32_t id;
        uint64_t offset;  // of the key's length in bytes_
    };
    std::string_view key_at(uint64_t offset) const {
        uint32_t len;
        std::memcpy(&len, bytes_.data() + offset, 4);
        return std::string_view(bytes_.data() + offset + 4, len);
    }
    void grow() {
        std::pmr::vector<Slot> bigger(slots_.size() * 2, Slot{0, 0, 0}, slots_.get_allocator());
        std::size_t mask = bigger.size() - 1;
        for (const Slot& s : slots_) {
            if (s.tag == 0) continue;
            std::size_t i = hash(key_at(s.offset)) & mask;
            while (bigger[i].tag != 0) i = (i + 1) & mask;
            bigger[i] = s;
        }
        slots_.swap(bigger);
    }

    std::pmr::vector<char> bytes_;
    std::pmr::vector<Slot> slots_;
    uint32_t size_ = 0;
};

}  // namespace privrisk
