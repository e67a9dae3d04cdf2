// Pseudonyms (docs/pseudonymization.md): a value's pseudonym is SipHash-2-4 with
// a 128-bit output (libsodium's crypto_shorthash_siphashx24, a keyed PRF) of the
// value's canonical text, as 32 lowercase hex digits. Its 128-bit key is derived
// from the policy's stored 32-byte key with libsodium's KDF (keyed BLAKE2b,
// context "pseudonm", subkey 1). One key per policy: the same value gets the same
// pseudonym within a policy, unrelated ones across policies. Plain C++: no
// PostgreSQL.
//
// About 25 ns a value (HMAC-SHA-256, the first choice, cost 370 ns: most of a
// release's read). A Pseudonymizer is the derived key: no destructor, never
// throws, so the release scan keeps it in its own memory and calls it per row;
// pseudonymizer_wipe clears it.
#pragma once

#include <sodium.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace privrisk {

constexpr std::size_t kPseudonymKeyBytes = 32;  // a policy's stored key: random, crypto_kdf_KEYBYTES
constexpr std::size_t kPseudonymBytes = crypto_shorthash_siphashx24_BYTES;  // 128 bits
constexpr std::size_t kPseudonymChars = 2 * kPseudonymBytes;                // hex

struct Pseudonymizer {
    unsigned char key[crypto_shorthash_siphashx24_KEYBYTES];
};

// Keys it from a policy's stored key (kPseudonymKeyBytes).
void pseudonymizer_init(Pseudonymizer* p, const unsigned char key[kPseudonymKeyBytes]);
// Keys it with a SipHash key as it is (the reference vectors').
void pseudonymizer_init_prf(Pseudonymizer* p, const unsigned char key[crypto_shorthash_siphashx24_KEYBYTES]);
void pseudonymizer_wipe(Pseudonymizer* p);

// The PRF's 16 bytes for `value`.
void pseudonym_prf(const Pseudonymizer* p, std::string_view value, unsigned char out[kPseudonymBytes]);

// The pseudonym of `value`: kPseudonymChars hex digits written to `out` (not terminated).
void pseudonym(const Pseudonymizer* p, std::string_view value, char out[kPseudonymChars]);

// The same as a string, for tests and callers off the per-row path.
std::string pseudonym(const Pseudonymizer* p, std::string_view value);

// The last pseudonyms computed, in a fixed table of slots indexed by the value's
// hash, each holding one value of up to kMaxKey bytes and its pseudonym: repeated
// values (a person's rows) skip the PRF; a value not found costs one probe and
// replaces its slot. No allocation, no rehash, nothing to grow; small enough to
// stay in a core's cache (a probe that waits for memory costs more than the PRF).
// Distinct values, the common case for identifiers, gain nothing from it: while
// fewer than a quarter of the last kSample lookups found their value, the next
// kBypass values go to the PRF without a probe. Zeroed: empty.
struct PseudonymCache {
    static constexpr std::size_t kSlots = std::size_t(1) << 12;
    static constexpr std::size_t kMaxKey = 54;
    static constexpr uint32_t kSample = 1024;
    static constexpr uint32_t kBypass = 64 * 1024;
    struct Slot {
        uint64_t hash;  // the value's hash with its low bit set; 0 for an empty slot
        uint16_t length;
        char key[kMaxKey];
        char pseudonym[kPseudonymChars];
    };
    Slot slots[kSlots];  // 384 kB
    uint32_t lookups;    // in the current sample
    uint32_t hits;
    uint32_t bypass;  // values left to compute without a probe
};

// The pseudonym of `value` into `out`: from the cache, or computed and remembered.
void cached_pseudonym(PseudonymCache* cache, const Pseudonymizer* p, std::string_view value, char out[kPseudonymChars]);

// A fresh random key (libsodium's randombytes).
void random_pseudonym_key(unsigned char key[kPseudonymKeyBytes]);

}  // namespace privrisk
