// Pseudonyms are HMAC-SHA-256 (RFC 4231's vectors), truncated to 16 bytes in hex,
// and depend on the key: the same value and key give the same pseudonym, another
// key another one.
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

std::string mac_hex(const std::string& key, const std::string& data) {
    Pseudonymizer p;
    pseudonymizer_init(&p, reinterpret_cast<const unsigned char*>(key.data()), key.size());
    unsigned char mac[crypto_auth_hmacsha256_BYTES];
    pseudonym_mac(&p, data, mac);
    return hex(mac, sizeof mac);
}

}  // namespace

TEST(Pseudonym, Rfc4231Vectors) {
    EXPECT_EQ(mac_hex(std::string(20, '\x0b'), "Hi There"),
              "b0344c61d8db38535ca8afceaf0bf12b881dc200c9833da726e9376c2e32cff7");  // test case 1
    EXPECT_EQ(mac_hex("Jefe", "what do ya want for nothing?"),
              "5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");  // test case 2
    EXPECT_EQ(mac_hex(std::string(131, '\xaa'), "Test Using Larger Than Block-Size Key - Hash Key First"),
              "60e431591ee0b67f0d8a26aacbf5b77f8e0bc6213728c5140546040f0ee37f54");  // test case 6
    EXPECT_EQ(mac_hex(std::string(131, '\xaa'),
                      "This is a test using a larger than block-size key and a larger than block-size data. The key "
                      "needs to be hashed before being used by the HMAC algorithm."),
              "9b09ffa71b942fcb27635fbcd5b0e944bfdc63644f0713938a7f51535c3a35e2");  // test case 7
}

TEST(Pseudonym, IsTheMacsFirstSixteenBytesInHex) {
    std::string key(kPseudonymKeyBytes, '\x0b');
    Pseudonymizer p;
    pseudonymizer_init(&p, reinterpret_cast<const unsigned char*>(key.data()), key.size());
    std::string full = mac_hex(key, "alice@example.org");
    EXPECT_EQ(pseudonym(&p, "alice@example.org"), full.substr(0, kPseudonymChars));
    EXPECT_EQ(pseudonym(&p, "alice@example.org").size(), 32u);
}

TEST(Pseudonym, DeterministicPerKeyAndDistinctAcrossKeys) {
    unsigned char k1[kPseudonymKeyBytes], k2[kPseudonymKeyBytes];
    random_pseudonym_key(k1);
    random_pseudonym_key(k2);
    ASSERT_NE(hex(k1, sizeof k1), hex(k2, sizeof k2));
    Pseudonymizer a, b, a_again;
    pseudonymizer_init(&a, k1, sizeof k1);
    pseudonymizer_init(&b, k2, sizeof k2);
    pseudonymizer_init(&a_again, k1, sizeof k1);
    // The keyed state is reused: one value after another gives each its own pseudonym.
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

// The cache of recent pseudonyms gives what the HMAC gives, for values that fit a
// slot and longer ones, first seen, repeated and after their slot was taken.
TEST(Pseudonym, CacheGivesTheSamePseudonyms) {
    unsigned char key[kPseudonymKeyBytes];
    random_pseudonym_key(key);
    Pseudonymizer p;
    pseudonymizer_init(&p, key, sizeof key);
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
