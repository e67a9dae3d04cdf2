// Pseudonyms are SipHash-2-4 with a 128-bit output (the reference implementation's
// vectors) under a key derived from the policy's (BLAKE2b, checked against Python's
// hashlib), in hex, and depend on the key: the same value and key give the same
// pseudonym, another key another one.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>

#include "release/pseudonym.hpp"

using namespace privrisk;

namespace {

std::string hex(const unsigned char* bytes, std::size_t n) {
    static const char digits[] = "0123456789abcdef";
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += {digits[bytes[i] >> 4], digits[bytes[i] & 15]};
    return s;
}

// SipHash-2-4-128 under `key` (16 bytes) of `data`, in hex.
std::string prf_hex(const unsigned char* key, const std::string& data) {
    Pseudonymizer p;
    pseudonymizer_init_prf(&p, key);
    unsigned char out[kPseudonymBytes];
    pseudonym_prf(&p, data, out);
    return hex(out, sizeof out);
}

}  // namespace

// vectors.h of github.com/veorq/SipHash (vectors_sip128): key 00 01 … 0f, message
// 00 01 … (n - 1) bytes long.
TEST(Pseudonym, SipHash128ReferenceVectors) {
    unsigned char key[16];
    std::string message;
    for (int i = 0; i < 16; ++i) key[i] = static_cast<unsigned char>(i);
    for (int i = 0; i < 64; ++i) message += static_cast<char>(i);
    EXPECT_EQ(prf_hex(key, message.substr(0, 0)), "a3817f04ba25a8e66df67214c7550293");
    EXPECT_EQ(prf_hex(key, message.substr(0, 1)), "da87c1d86b99af44347659119b22fc45");
    EXPECT_EQ(prf_hex(key, message.substr(0, 15)), "5493e99933b0a8117e08ec0f97cfc3d9");
    EXPECT_EQ(prf_hex(key, message.substr(0, 63)), "5150d1772f50834a503e069a973fbd7c");
}

// The key a policy's stored key gives: Python's hashlib.blake2b(b'', digest_size=16,
// key=stored, salt=(1).to_bytes(8, 'little') + bytes(8), person=b'pseudonm' + bytes(8)),
// and the pseudonym under it, from a SipHash-2-4-128 written in Python from the paper
// (which gives the reference vectors above).
TEST(Pseudonym, IsThePrfOfTheDerivedKeyInHex) {
    std::string stored(kPseudonymKeyBytes, '\x0b');
    Pseudonymizer p;
    pseudonymizer_init(&p, reinterpret_cast<const unsigned char*>(stored.data()));
    EXPECT_EQ(hex(p.key, sizeof p.key), "6e4ffce91b4648c5376177bc1cd00987");
    EXPECT_EQ(pseudonym(&p, "alice@example.org"), "0a77f80fb5d5a968f0ec32eec036d77e");
    EXPECT_EQ(pseudonym(&p, "alice@example.org").size(), 32u);
}

// The pseudonym's digits are the PRF's bytes in hex, for every byte value the PRF gives.
TEST(Pseudonym, DigitsAreThePrfInHex) {
    Pseudonymizer p;
    unsigned char key[crypto_shorthash_siphashx24_KEYBYTES] = {7};
    pseudonymizer_init_prf(&p, key);
    bool seen[256] = {};
    for (int i = 0; i < 2000; ++i) {
        const std::string value = "value-" + std::to_string(i);
        unsigned char mac[kPseudonymBytes];
        pseudonym_prf(&p, value, mac);
        for (unsigned char b : mac) seen[b] = true;
        ASSERT_EQ(pseudonym(&p, value), hex(mac, sizeof mac)) << value;
    }
    EXPECT_EQ(std::count(seen, seen + 256, true), 256);
}

TEST(Pseudonym, DeterministicPerKeyAndDistinctAcrossKeys) {
    unsigned char k1[kPseudonymKeyBytes], k2[kPseudonymKeyBytes];
    random_pseudonym_key(k1);
    random_pseudonym_key(k2);
    ASSERT_NE(hex(k1, sizeof k1), hex(k2, sizeof k2));
    Pseudonymizer a, b, a_again;
    pseudonymizer_init(&a, k1);
    pseudonymizer_init(&b, k2);
    pseudonymizer_init(&a_again, k1);
    // The key is reused: one value after another gives each its own pseudonym.
    std::string first = pseudonym(&a, "4711");
    EXPECT_NE(pseudonym(&a, "4712"), first);
    EXPECT_EQ(pseudonym(&a, "4711"), first);
    EXPECT_EQ(pseudonym(&a_again, "4711"), first);
    EXPECT_NE(pseudonym(&b, "4711"), first);
    EXPECT_NE(pseudonym(&a, ""), pseudonym(&b, ""));  // the empty string too
    pseudonymizer_wipe(&a);
    const auto* bytes = reinterpret_cast<const unsigned char*>(&a);
    EXPECT_EQ(std::count(bytes, bytes + sizeof a, 0), static_cast<long>(sizeof a));
}

// The cache of recent pseudonyms gives what the PRF gives, for values that fit a
// slot and longer ones, first seen, repeated and after their slot was taken.
TEST(Pseudonym, CacheGivesTheSamePseudonyms) {
    unsigned char key[kPseudonymKeyBytes];
    random_pseudonym_key(key);
    Pseudonymizer p;
    pseudonymizer_init(&p, key);
    auto cache = std::make_unique<PseudonymCache>();  // zeroed: value-initialized
    char out[kPseudonymChars];
    for (int round = 0; round < 2; ++round)
        for (int i = 0; i < 3 * static_cast<int>(PseudonymCache::kSlots); i += 7) {
            std::string v = "person-" + std::to_string(i) + (i % 3 == 0 ? std::string(60, 'x') : "");
            cached_pseudonym(cache.get(), &p, v, out);
            ASSERT_EQ(std::string(out, kPseudonymChars), pseudonym(&p, v)) << v;
        }
    cached_pseudonym(cache.get(), &p, "", out);
    EXPECT_EQ(std::string(out, kPseudonymChars), pseudonym(&p, ""));
}

// Distinct values turn the probes off for a while, values repeated next to each
// other keep them on; the pseudonyms are the PRF's either way.
TEST(Pseudonym, CacheStepsAsideForDistinctValues) {
    unsigned char key[kPseudonymKeyBytes];
    random_pseudonym_key(key);
    Pseudonymizer p;
    pseudonymizer_init(&p, key);
    auto cache = std::make_unique<PseudonymCache>();
    char out[kPseudonymChars];
    for (uint32_t i = 0; i < PseudonymCache::kSample; ++i) {  // each value once
        std::string v = "distinct-" + std::to_string(i);
        cached_pseudonym(cache.get(), &p, v, out);
        ASSERT_EQ(std::string(out, kPseudonymChars), pseudonym(&p, v));
    }
    EXPECT_EQ(cache->bypass, PseudonymCache::kBypass);
    for (uint32_t i = 0; i < PseudonymCache::kBypass; ++i) {  // repeated, but not looked up meanwhile
        cached_pseudonym(cache.get(), &p, "again", out);
        ASSERT_EQ(std::string(out, kPseudonymChars), pseudonym(&p, "again"));
    }
    EXPECT_EQ(cache->bypass, 0u);
    for (uint32_t i = 0; i < 4 * PseudonymCache::kSample; ++i) {  // each value in 4 rows in a row
        std::string v = "person-" + std::to_string(i / 4);
        cached_pseudonym(cache.get(), &p, v, out);
        ASSERT_EQ(std::string(out, kPseudonymChars), pseudonym(&p, v));
    }
    EXPECT_EQ(cache->bypass, 0u);  // three hits in four: the probes stay on
}
