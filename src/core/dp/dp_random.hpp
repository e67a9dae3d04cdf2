// The randomness of a differentially private release (docs/dp.md). Which rows
// are in a sample is a keyed pseudo-random function (SipHash-2-4) of what the
// release shows of them: their class (the released values) and their number
// within it. Rows of one class are indistinguishable in a release, so the
// count of a class's sampled rows is all that matters, and it is the same
// whatever the scan order, the parallel workers or where the rows are stored
// (one table, partitions, shards), and cannot be predicted without the run's
// secret. The secret comes from the OS CSPRNG, or from a seed for a
// reproducible (and therefore not private) run. Run-level draws (a threshold,
// the order of the output) come from ChaCha20 keyed by the same secret.
// libsodium provides both.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace privrisk {

enum class DpStream : uint8_t { Sample = 0, Choice = 1, Threshold = 2, Shuffle = 3 };

class DpRandom {
public:
    using Secret = std::array<unsigned char, 32>;

    explicit DpRandom(const Secret& secret);
    static DpRandom from_seed(int64_t seed);  // reproducible: for tests only

    // A uniform 64-bit word for the item identified by id[0..n) in a stream.
    uint64_t row_word(DpStream stream, const void* id, std::size_t n) const;

    // How many of a class's `rows` rows are in a sample that includes each row
    // independently with probability threshold/2^64: row j (1..rows) of the
    // class identified by id[0..n) (see sample_identity) is in it when a word
    // keyed on the class and j is below the threshold. A Binomial(rows, p)
    // count, as if each row had been drawn on its own. `every_65536` runs
    // after each 65,536 rows (a cancel check).
    int64_t sampled_rows(const void* id, std::size_t n, int64_t rows, uint64_t threshold,
                         const std::function<void()>& every_65536 = {}) const;
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

// A class's identity for sampled_rows: each value as a flag (0: NULL), then
// its length (4 bytes, little-endian) and bytes, so that no two lists of
// values share one. Values are the texts a release shows.
std::string sample_identity(const std::vector<std::optional<std::string_view>>& values);

}  // namespace privrisk
