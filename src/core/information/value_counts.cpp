#include "information/value_counts.hpp"

#include <algorithm>
#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "common/error.hpp"
#include "information/information.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

namespace {

Fingerprint of(XXH128_hash_t h) { return Fingerprint{h.low64, h.high64}; }

template <typename T>
void put(std::string& out, const T& v) {
    out.append(reinterpret_cast<const char*>(&v), sizeof v);
}

template <typename T>
T get(std::string_view& in) {
    if (in.size() < sizeof(T)) fail(ErrorKind::InvalidParameter, "truncated value counts");
    T v;
    std::memcpy(&v, in.data(), sizeof v);
    in.remove_prefix(sizeof v);
    return v;
}

// A full 64-bit mix (splitmix64's finalizer): a pair key keeps the y id in its low
// bits, which a plain multiply would leave alone in the slot's low bits.
std::size_t slot_of(uint64_t key, std::size_t capacity) {
    key ^= key >> 30;
    key *= 0xbf58476d1ce4e5b9ull;
    key ^= key >> 27;
    key *= 0x94d049bb133111ebull;
    key ^= key >> 31;
    return key & (capacity - 1);
}

}  // namespace

void FingerprintBuilder::append(const void* p, std::size_t n) {
    if (spill_.empty() && used_ + n <= sizeof local_) {
        std::memcpy(local_ + used_, p, n);
        used_ += n;
        return;
    }
    if (spill_.empty()) spill_.assign(local_, used_);
    spill_.append(static_cast<const char*>(p), n);
}

void FingerprintBuilder::part(std::string_view bytes) {
    uint64_t n = bytes.size();
    append(&n, sizeof n);
    append(bytes.data(), bytes.size());
}

void FingerprintBuilder::bottom() {
    uint64_t marker = ~uint64_t(0);
    append(&marker, sizeof marker);
}

Fingerprint FingerprintBuilder::finish() const {
    return spill_.empty() ? fingerprint(std::string_view(local_, used_)) : fingerprint(spill_);
}

Fingerprint fingerprint(std::string_view bytes) { return of(XXH3_128bits(bytes.data(), bytes.size())); }
Fingerprint bottom_fingerprint() { return of(XXH3_128bits_withSeed("", 0, 0x5eed0f00b07700ull)); }

ValueCounts::ValueCounts(std::pmr::memory_resource* mr, bool pairs)
    : mr_(mr), pairs_(pairs), values_(mr), ys_(mr), x_ids_(mr), y_ids_(mr), joint_(mr) {}

int64_t& ValueCounts::find(std::pmr::vector<Slot>& table, std::size_t& used, Fingerprint key, bool* added) {
    if (table.empty() || 4 * (used + 1) > 3 * table.size()) {  // grow at 3/4 full
        std::pmr::vector<Slot> bigger(table.empty() ? 256 : table.size() * 2, Slot{}, table.get_allocator());
        for (const Slot& s : table) {
            if (!s.value) continue;
            std::size_t i = s.key.low & (bigger.size() - 1);
            while (bigger[i].value) i = (i + 1) & (bigger.size() - 1);
            bigger[i] = s;
        }
        table.swap(bigger);
    }
    std::size_t i = key.low & (table.size() - 1);  // a fingerprint's bits are already uniform
    while (table[i].value && !(table[i].key == key)) i = (i + 1) & (table.size() - 1);
    *added = !table[i].value;
    if (*added) {
        table[i].key = key;
        ++used;
    }
    return table[i].value;
}

uint32_t ValueCounts::side_id(std::pmr::vector<Slot>& table, std::size_t& used, std::pmr::vector<Fingerprint>& ids,
                              Fingerprint f) {
    bool added;
    int64_t& id = find(table, used, f, &added);
    if (added) {
        if (ids.size() >= UINT32_MAX - 1) fail(ErrorKind::ProgramLimit, "more than 2^32 - 2 distinct values");
        ids.push_back(f);
        id = static_cast<int64_t>(ids.size());  // id + 1
    }
    return static_cast<uint32_t>(id - 1);
}

void ValueCounts::add_joint(uint64_t key, int64_t count) {
    if (joint_.empty() || 4 * (joint_used_ + 1) > 3 * joint_.size()) {
        std::pmr::vector<JointSlot> bigger(joint_.empty() ? 256 : joint_.size() * 2, JointSlot{},
                                           joint_.get_allocator());
        for (const JointSlot& s : joint_) {
            if (!s.count) continue;
            std::size_t i = slot_of(s.key, bigger.size());
            while (bigger[i].count) i = (i + 1) & (bigger.size() - 1);
            bigger[i] = s;
        }
        joint_.swap(bigger);
    }
    std::size_t i = slot_of(key, joint_.size());
    while (joint_[i].count && joint_[i].key != key) i = (i + 1) & (joint_.size() - 1);
    if (!joint_[i].count) {
        joint_[i].key = key;
        ++joint_used_;
    }
    joint_[i].count += count;
}

void ValueCounts::add(Fingerprint x, int64_t count) {
    if (pairs_) fail(ErrorKind::Internal, "a pair state given one value");
    bool added;
    find(values_, values_used_, x, &added) += count;
    rows_ += count;
}

void ValueCounts::add(Fingerprint x, Fingerprint y, int64_t count) {
    if (!pairs_) fail(ErrorKind::Internal, "a value state given a pair");
    uint64_t key = uint64_t(side_id(values_, values_used_, x_ids_, x)) << 32 | side_id(ys_, ys_used_, y_ids_, y);
    add_joint(key, count);
    rows_ += count;
}

void ValueCounts::merge(const ValueCounts& other) {
    if (other.pairs_ != pairs_) fail(ErrorKind::Internal, "merging value counts of different kinds");
    if (!pairs_) {
        for (const Slot& s : other.values_)
            if (s.value) add(s.key, s.value);
        return;
    }
    for (const JointSlot& s : other.joint_)
        if (s.count) add(other.x_ids_[s.key >> 32], other.y_ids_[s.key & 0xffffffff], s.count);
}

std::string ValueCounts::serialize() const {
    std::string out;
    put(out, static_cast<uint8_t>(pairs_));
    if (!pairs_) {
        put(out, static_cast<uint64_t>(values_used_));
        for (const Slot& s : values_)
            if (s.value) put(out, s);
        return out;
    }
    put(out, static_cast<uint64_t>(x_ids_.size()));
    for (const Fingerprint& f : x_ids_) put(out, f);
    put(out, static_cast<uint64_t>(y_ids_.size()));
    for (const Fingerprint& f : y_ids_) put(out, f);
    put(out, static_cast<uint64_t>(joint_used_));
    for (const JointSlot& s : joint_)
        if (s.count) put(out, s);
    return out;
}

namespace {

// The byte form may come from anywhere: a count is sized against the bytes left
// before anything is allocated by it, and every row count is one a state can hold.
constexpr int64_t kMaxRows = INT64_MAX;

uint64_t get_count(std::string_view& in, std::size_t item) {
    uint64_t n = get<uint64_t>(in);
    if (n > in.size() / item) fail(ErrorKind::InvalidParameter, "value counts: a count runs past the end");
    return n;
}

void check_rows(int64_t count, int64_t rows) {
    if (count < 1 || count > kMaxRows - rows)
        fail(ErrorKind::InvalidParameter, "value counts: a row count out of range");
}

}  // namespace

void ValueCounts::add_serialized(std::string_view in) {
    if (get<uint8_t>(in) != static_cast<uint8_t>(pairs_))
        fail(ErrorKind::InvalidParameter, "value counts of another kind");
    if (!pairs_) {
        for (uint64_t n = get_count(in, sizeof(Slot)); n > 0; --n) {
            Slot s = get<Slot>(in);
            check_rows(s.value, rows_);
            add(s.key, s.value);
        }
    } else {
        std::vector<Fingerprint> xs(get_count(in, sizeof(Fingerprint))), ys;
        for (auto& f : xs) f = get<Fingerprint>(in);
        ys.resize(get_count(in, sizeof(Fingerprint)));
        for (auto& f : ys) f = get<Fingerprint>(in);
        for (uint64_t n = get_count(in, sizeof(JointSlot)); n > 0; --n) {
            JointSlot s = get<JointSlot>(in);
            if ((s.key >> 32) >= xs.size() || (s.key & 0xffffffff) >= ys.size())
                fail(ErrorKind::InvalidParameter, "value counts: a pair id out of range");
            check_rows(s.count, rows_);
            add(xs[s.key >> 32], ys[s.key & 0xffffffff], s.count);
        }
    }
    if (!in.empty()) fail(ErrorKind::InvalidParameter, "value counts: trailing bytes");
}

namespace {

double counts_entropy(const std::vector<int64_t>& counts) { return entropy_nats(counts); }  // order-free

}  // namespace

std::vector<int64_t> ValueCounts::marginal(bool x_side) const {
    std::vector<int64_t> m(x_side ? x_ids_.size() : y_ids_.size(), 0);
    for (const JointSlot& s : joint_)
        if (s.count) m[x_side ? s.key >> 32 : s.key & 0xffffffff] += s.count;
    return m;
}

double ValueCounts::entropy() const {
    std::vector<int64_t> counts;
    if (!pairs_) {
        for (const Slot& s : values_)
            if (s.value) counts.push_back(s.value);
    } else {
        for (const JointSlot& s : joint_)
            if (s.count) counts.push_back(s.count);
    }
    return counts_entropy(std::move(counts));
}

double ValueCounts::entropy_x() const { return counts_entropy(marginal(true)); }
double ValueCounts::entropy_y() const { return counts_entropy(marginal(false)); }

double entropy_measure(const ValueCounts& c, EntropyMeasure measure, bool bits) {
    double nats = 0;
    switch (measure) {
        case EntropyMeasure::Entropy:
            nats = c.entropy();
            break;
        case EntropyMeasure::ConditionalEntropy:
            nats = std::max(0.0, c.entropy() - c.entropy_y());
            break;
        case EntropyMeasure::MutualInformation:
            nats = std::max(0.0, c.entropy_x() + c.entropy_y() - c.entropy());
            break;
    }
    return bits ? nats / kNatsPerBit : nats;
}

}  // namespace privrisk
