// The randomness of a differentially private release (docs/dp.md). Every draw
// that concerns a row is a keyed pseudo-random function (SipHash-2-4) of the
// row's identity, so it does not depend on the scan order or on which parallel
// worker reads the row, and cannot be predicted without the run's secret. The
// secret comes from the OS CSPRNG, or from a seed for a reproducible (and
// therefore not private) run. Run-level draws (a threshold, the order of the
// output) come from ChaCha20 keyed by the same secret. libsodium provides both.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace privrisk {

enum class DpStream : uint8_t { Sample = 0, Choice = 1, Threshold = 2, Shuffle = 3 };

class DpRandom {
public:
    using Secret = std::array<unsigned char, 32>;

    explicit DpRandom(const Secret& secret);
    static DpRandom from_seed(int64_t seed);  // reproducible: for tests only

    // A uniform 64-bit word for the row identified by id[0..n) in a stream.
    uint64_t row_word(DpStream stream, const void* id, std::size_t n) const;

    // The row is in a sample that includes each row with probability p.
    bool sampled(const void* id, std::size_t n, uint64_t threshold) const {
        return row_word(DpStream::Sample, id, n) < threshold;
    }
    // Words below the threshold have probability floor(p·2^64)/2^64 <= p: a
    // rounded rate can only be smaller, the safe side for the privacy proofs.
    static uint64_t inclusion_threshold(double p);

    // A word in (0, 1]: (w + 1) / 2^64, so never 0 (a log can be taken).
    static double unit(uint64_t w) { return (double(w >> 11) + 1.0) * 0x1p-53; }

    // Run-level draws, reproducible for a seed: `count` words of a stream.
    std::vector<uint64_t> run_words(DpStream stream, std::size_t count) const;

    // A uniformly random order of `items` (Fisher–Yates on run words; the
    // modulo bias is below count/2^64).
    template <typename T>
    void shuffle(std::vector<T>& items) const {
        if (items.size() < 2) return;
        std::vector<uint64_t> w = run_words(DpStream::Shuffle, items.size());
        for (std::size_t i = items.size() - 1; i > 0; --i) std::swap(items[i], items[w[i] % (i + 1)]);
    }

private:
    std::array<std::array<unsigned char, 16>, 4> row_keys_;     // SipHash key per stream
    std::array<std::array<unsigned char, 32>, 4> stream_keys_;  // ChaCha20 seed per stream
};

}  // namespace privrisk
