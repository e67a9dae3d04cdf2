// An open-addressing index from byte strings to dense ids 0, 1, 2, …: keys are
// kept back to back in one buffer, each behind its length; a slot holds the
// key's hash tag, id, offset, length and first 8 bytes, so a key of up to 8
// bytes is found without leaving its slot, and a longer one with one more
// access. Memory comes from a std::pmr resource.
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

    static constexpr uint32_t kAbsent = UINT32_MAX;

    // n <= 8 bytes as a little-endian word, zero-padded: two overlapping loads
    // instead of a byte loop (short keys are most of what is looked up).
    static uint64_t small_word(const char* p, std::size_t n) noexcept {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
        if (n >= 4) {
            uint32_t low, high;
            std::memcpy(&low, p, 4);
            std::memcpy(&high, p + n - 4, 4);
            return uint64_t(low) | (uint64_t(high) << (8 * (n - 4)));
        }
        if (n == 0) return 0;
        auto byte = [p](std::size_t i) { return uint64_t(static_cast<unsigned char>(p[i])); };
        return byte(0) | (byte(n / 2) << (8 * (n / 2))) | (byte(n - 1) << (8 * (n - 1)));
#else
        uint64_t w = 0;
        for (std::size_t b = 0; b < n; ++b) w |= uint64_t(static_cast<unsigned char>(p[b])) << (8 * b);
        return w;
#endif
    }

    // The id of `key`, adding it (with the next id) when absent.
    uint32_t find_or_add(std::string_view key, bool* added = nullptr) {
        uint64_t spilled;
        return add_count(key, hash(key), 0, added, &spilled);  // n = 0: the counter code folds away
    }

    // The id of `key` (added when absent), also adding n to a 32-bit counter kept
    // in the key's slot: counting a key costs no second memory access. A counter
    // that would pass 2^32 − 1 is emptied into *spilled (else 0 there).
    uint32_t count(std::string_view key, uint32_t n, uint64_t* spilled) {
        return add_count(key, hash(key), n, nullptr, spilled);
    }
    // Calls f(id, counter) for every key whose counter is not 0, and empties it.
    template <typename F>
    void drain_counters(F f) {
        for (Slot& s : slots_)
            if (s.tag != 0 && s.counter != 0) {
                f(s.id, s.counter);
                s.counter = 0;
            }
    }

    // The id of `key`, or kAbsent. Never allocates, never throws.
    uint32_t find(std::string_view key) const noexcept { return find_hashed(key, hash(key)); }
    uint32_t find_hashed(std::string_view key, uint64_t h) const noexcept {
        const Slot& s = slots_[probe(key, h)];
        return s.tag == 0 ? kAbsent : s.id;
    }
    // Batched lookups in a table larger than the cache: hash a batch of keys,
    // prefetch their slots, then look them up (the slots' memory is read in
    // parallel instead of one row's miss after another's).
    void prefetch(uint64_t h) const noexcept {
#if defined(__GNUC__)
        __builtin_prefetch(&slots_[h & (slots_.size() - 1)]);
#else
        (void)h;
#endif
    }
    uint32_t find_or_add_hashed(std::string_view key, uint64_t h, bool* added) {
        uint64_t spilled;
        return add_count(key, h, 0, added, &spilled);
    }
    // count() of a key whose hash is known (a batch's): *added as find_or_add's.
    uint32_t count_hashed(std::string_view key, uint64_t h, uint32_t n, bool* added, uint64_t* spilled) {
        return add_count(key, h, n, added, spilled);
    }
    std::size_t size() const { return size_; }
    // Calls f(id, key) for every key, in no particular order.
    template <typename F>
    void for_each_key(F f) const {
        for (const Slot& s : slots_)
            if (s.tag != 0) f(s.id, std::string_view(bytes_.data() + s.offset, s.length));
    }
    // Room for n keys without growing (one rehash instead of many).
    void reserve(std::size_t n) {
        std::size_t capacity = slots_.size();
        while (capacity < 2 * n) capacity *= 2;
        if (capacity != slots_.size()) rehash(capacity);
    }

    // FNV-1a over 8-byte words, then a final mix: fast on short keys, well spread.
    static uint64_t hash(std::string_view key) noexcept {
        uint64_t h = 0xcbf29ce484222325ull ^ key.size();
        std::size_t i = 0;
        for (; i + 8 <= key.size(); i += 8) {
            uint64_t w;
            std::memcpy(&w, key.data() + i, 8);
            h = (h ^ w) * 0x100000001b3ull;
            h ^= h >> 29;
        }
        h = (h ^ small_word(key.data() + i, key.size() - i)) * 0x100000001b3ull;
        h ^= h >> 32;
        h *= 0xd6e8feb86659fd93ull;
        h ^= h >> 32;
        return h;
    }

private:
    uint32_t add_count(std::string_view key, uint64_t h, uint32_t n, bool* added, uint64_t* spilled) {
        std::size_t i = probe(key, h);
        Slot& s = slots_[i];
        if (added) *added = s.tag == 0;
        *spilled = 0;
        if (s.tag != 0) {
            if (s.counter > UINT32_MAX - n) {
                *spilled = uint64_t(s.counter) + n;
                s.counter = 0;
            } else {
                s.counter += n;
            }
            return s.id;
        }
        s = Slot{tag_of(h), size_, static_cast<uint32_t>(key.size()), n, prefix(key), bytes_.size()};
        bytes_.insert(bytes_.end(), key.begin(), key.end());
        ++size_;
        if (2 * std::size_t(size_) > slots_.size()) grow();
        return size_ - 1;
    }

    static uint32_t tag_of(uint64_t h) { return static_cast<uint32_t>(h >> 32) | 1; }  // 0 marks an empty slot

    // The slot holding `key`, or the empty slot where it would go.
    std::size_t probe(std::string_view key, uint64_t h) const noexcept {
        uint32_t tag = tag_of(h);
        uint64_t head = prefix(key);
        uint32_t len = static_cast<uint32_t>(key.size());
        std::size_t mask = slots_.size() - 1;
        for (std::size_t i = h & mask;; i = (i + 1) & mask) {
            const Slot& s = slots_[i];
            if (s.tag == 0) return i;
            if (s.tag == tag && s.length == len && s.head == head &&
                (len <= 8 || same(bytes_.data() + s.offset + 8, key.data() + 8, len - 8)))
                return i;
        }
    }

    static uint64_t prefix(std::string_view key) noexcept {
        return small_word(key.data(), key.size() < 8 ? key.size() : 8);
    }
    // Keys are short labels: a byte loop beats a call to memcmp.
    static bool same(const char* a, const char* b, std::size_t n) noexcept {
        if (n > 32) return std::memcmp(a, b, n) == 0;
        for (std::size_t i = 0; i < n; ++i)
            if (a[i] != b[i]) return false;
        return true;
    }
    struct Slot {
        uint32_t tag;  // high half of the hash, low bit set
        uint32_t id;
        uint32_t length;
        uint32_t counter;  // count()'s
        uint64_t head;     // the key's first 8 bytes
        uint64_t offset;   // of the key's bytes in bytes_
    };
    void grow() { rehash(slots_.size() * 2); }
    // A key of up to 8 bytes is whole in its slot's head (hash() of such a key
    // only reads those bytes), so moving it needs no access to bytes_.
    void rehash(std::size_t capacity) {
        std::pmr::vector<Slot> bigger(capacity, Slot{}, slots_.get_allocator());
        std::size_t mask = bigger.size() - 1;
        for (const Slot& s : slots_) {
            if (s.tag == 0) continue;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
            uint64_t h = s.length <= 8 ? hash(std::string_view(reinterpret_cast<const char*>(&s.head), s.length))
                                       : hash(std::string_view(bytes_.data() + s.offset, s.length));
#else
            uint64_t h = hash(std::string_view(bytes_.data() + s.offset, s.length));
#endif
            std::size_t i = h & mask;
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
