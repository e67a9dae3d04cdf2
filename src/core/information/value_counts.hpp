// The state of the entropy aggregates (docs/information.md): how many rows hold each
// distinct value (or pair of values). A value is identified by a 128-bit
// fingerprint of its bytes (XXH3-128), so the state never stores the values:
// memory grows with the distinct values at 24 bytes each (a pair: 16 bytes per
// distinct pair plus each side's fingerprints), and two different values merge
// only with probability about n²/2¹²⁹ (below 1e-24 for a billion values).
#pragma once

#include <cstdint>
#include <memory_resource>
#include <string>
#include <string_view>
#include <vector>

namespace privrisk {

struct Fingerprint {
    uint64_t low = 0, high = 0;
    bool operator==(const Fingerprint& o) const { return low == o.low && high == o.high; }
};

// Fingerprint of a value made of parts (a row's fields): each part is framed by
// its length, ⊥ by a marker no length can be. Parts are gathered in a buffer
// and hashed once (rows are short; the buffer grows past 256 bytes).
class FingerprintBuilder {
public:
    void part(std::string_view bytes);
    void bottom();
    Fingerprint finish() const;

private:
    void append(const void* p, std::size_t n);
    char local_[256];
    std::size_t used_ = 0;
    std::string spill_;  // used once the parts outgrow local_
};
Fingerprint fingerprint(std::string_view bytes);  // one part
Fingerprint bottom_fingerprint();                 // ⊥ alone

class ValueCounts {
public:
    ValueCounts(std::pmr::memory_resource* mr, bool pairs);
    bool pairs() const { return pairs_; }
    void add(Fingerprint x, int64_t count = 1);
    void add(Fingerprint x, Fingerprint y, int64_t count = 1);
    void merge(const ValueCounts& other);
    // Transfer form between parallel workers of one build (native byte order).
    std::string serialize() const;
    void add_serialized(std::string_view bytes);

    // Entropies in nats, summed exactly (so any plan and order give the same bits).
    double entropy() const;    // H(X); for pairs H(X, Y)
    double entropy_x() const;  // pairs: H(X)
    double entropy_y() const;  // pairs: H(Y)
    int64_t rows() const { return rows_; }
    // The bytes the tables hold (their capacities), for a memory bound.
    std::size_t memory_bytes() const {
        return (values_.capacity() + ys_.capacity()) * sizeof(Slot) +
               (x_ids_.capacity() + y_ids_.capacity()) * sizeof(Fingerprint) + joint_.capacity() * sizeof(JointSlot);
    }

private:
    // Open addressing: fingerprint -> count (single values) or -> id (a pair's sides).
    struct Slot {
        Fingerprint key;
        int64_t value;  // 0: empty (counts and ids + 1 are never 0)
    };
    struct JointSlot {
        uint64_t key;   // x id << 32 | y id
        int64_t count;  // 0: empty
    };
    static int64_t& find(std::pmr::vector<Slot>& table, std::size_t& used, Fingerprint key, bool* added);
    uint32_t side_id(std::pmr::vector<Slot>& table, std::size_t& used, std::pmr::vector<Fingerprint>& ids,
                     Fingerprint f);
    void add_joint(uint64_t key, int64_t count);
    std::vector<int64_t> marginal(bool x_side) const;

    std::pmr::memory_resource* mr_;
    bool pairs_;
    int64_t rows_ = 0;
    std::pmr::vector<Slot> values_;  // single: value -> count; pairs: x -> id + 1
    std::size_t values_used_ = 0;
    std::pmr::vector<Slot> ys_;  // pairs: y -> id + 1
    std::size_t ys_used_ = 0;
    std::pmr::vector<Fingerprint> x_ids_, y_ids_;
    std::pmr::vector<JointSlot> joint_;
    std::size_t joint_used_ = 0;
};

// What the entropy aggregates report from their counts (docs/information.md), in nats
// or bits: H(X); H(X|Y) = H(X,Y) − H(Y); I(X;Y) = H(X) + H(Y) − H(X,Y) (both clamped at 0
// against rounding). The last two read pair counts.
enum class EntropyMeasure { Entropy, ConditionalEntropy, MutualInformation };
double entropy_measure(const ValueCounts& counts, EntropyMeasure measure, bool bits);

}  // namespace privrisk
