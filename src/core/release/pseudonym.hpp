// Pseudonyms (docs/pseudonymization.md): a value's pseudonym is the first 16
// bytes of HMAC-SHA-256(key, the value's canonical text), as 32 lowercase hex
// digits. One key per policy: the same value gets the same pseudonym within a
// policy, unrelated ones across policies. Plain C++: no PostgreSQL.
//
// A Pseudonymizer holds the HMAC state after the key (the inner and outer
// hashes' first block): a pseudonym then costs two SHA-256 blocks for values
// under 56 bytes. It has no destructor and never throws, so the release scan
// keeps it in its own memory and calls it per row; pseudonymizer_wipe clears it.
#pragma once

#include <sodium.h>

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace privrisk {

constexpr std::size_t kPseudonymKeyBytes = 32;  // a policy's key: random, crypto_auth_hmacsha256_KEYBYTES
constexpr std::size_t kPseudonymBytes = 16;     // of the MAC: 128 bits
constexpr std::size_t kPseudonymChars = 2 * kPseudonymBytes;  // hex

struct Pseudonymizer {
    crypto_auth_hmacsha256_state keyed;
};

// Keys the state (any key length: RFC 4231's vectors use others than 32).
void pseudonymizer_init(Pseudonymizer* p, const unsigned char* key, std::size_t key_length);
void pseudonymizer_wipe(Pseudonymizer* p);

// The full HMAC-SHA-256 of `value` (32 bytes).
void pseudonym_mac(const Pseudonymizer* p, std::string_view value, unsigned char mac[crypto_auth_hmacsha256_BYTES]);

// The pseudonym of `value`: kPseudonymChars hex digits written to `out` (not terminated).
void pseudonym(const Pseudonymizer* p, std::string_view value, char out[kPseudonymChars]);

// The same as a string, for tests and callers off the per-row path.
std::string pseudonym(const Pseudonymizer* p, std::string_view value);

// The last pseudonyms computed, in a fixed table of slots indexed by the value's
// hash, each holding one value of up to kMaxKey bytes and its pseudonym: repeated
// values (a person's rows) skip the HMAC; a value not found costs one probe and
// replaces its slot. No allocation, no rehash, nothing to grow: distinct values,
// the common case for identifiers, cost little more than their HMAC. Zeroed: empty.
struct PseudonymCache {
    static constexpr std::size_t kSlots = std::size_t(1) << 15;
    static constexpr std::size_t kMaxKey = 54;
    struct Slot {
        uint64_t hash;  // the value's hash with its low bit set; 0 for an empty slot
        uint16_t length;
        char key[kMaxKey];
        char pseudonym[kPseudonymChars];
    };
    Slot slots[kSlots];  // 3 MB
};

// The pseudonym of `value` into `out`: from the cache, or computed and remembered.
void cached_pseudonym(PseudonymCache* cache, const Pseudonymizer* p, std::string_view value,
                      char out[kPseudonymChars]);

// A fresh random key (libsodium's randombytes).
void random_pseudonym_key(unsigned char key[kPseudonymKeyBytes]);

}  // namespace privrisk
