#include "release/pseudonym.hpp"

#include <cstring>

#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

void pseudonymizer_init(Pseudonymizer* p, const unsigned char* key, std::size_t key_length) {
    if (sodium_init() < 0) fail(ErrorKind::Internal, "libsodium could not be initialized");
    crypto_auth_hmacsha256_init(&p->keyed, key, key_length);
}

void pseudonymizer_wipe(Pseudonymizer* p) { sodium_memzero(p, sizeof *p); }

void pseudonym_mac(const Pseudonymizer* p, std::string_view value, unsigned char mac[crypto_auth_hmacsha256_BYTES]) {
    crypto_auth_hmacsha256_state s;
    std::memcpy(&s, &p->keyed, sizeof s);  // the keyed state, reused for every value
    crypto_auth_hmacsha256_update(&s, reinterpret_cast<const unsigned char*>(value.data()), value.size());
    crypto_auth_hmacsha256_final(&s, mac);
    sodium_memzero(&s, sizeof s);
}

void pseudonym(const Pseudonymizer* p, std::string_view value, char out[kPseudonymChars]) {
    static const char digits[] = "0123456789abcdef";
    unsigned char mac[crypto_auth_hmacsha256_BYTES];
    pseudonym_mac(p, value, mac);
    for (std::size_t i = 0; i < kPseudonymBytes; ++i) {
        out[2 * i] = digits[mac[i] >> 4];
        out[2 * i + 1] = digits[mac[i] & 15];
    }
}

std::string pseudonym(const Pseudonymizer* p, std::string_view value) {
    std::string out(kPseudonymChars, '\0');
    pseudonym(p, value, out.data());
    return out;
}

void cached_pseudonym(PseudonymCache* cache, const Pseudonymizer* p, std::string_view value,
                      char out[kPseudonymChars]) {
    if (value.size() > PseudonymCache::kMaxKey) return pseudonym(p, value, out);
    const uint64_t h = FlatIndex::hash(value) | 1;
    PseudonymCache::Slot& slot = cache->slots[(h >> 17) & (PseudonymCache::kSlots - 1)];
    if (slot.hash == h && slot.length == value.size() && std::memcmp(slot.key, value.data(), value.size()) == 0) {
        std::memcpy(out, slot.pseudonym, kPseudonymChars);
        return;
    }
    pseudonym(p, value, out);
    slot.hash = h;
    slot.length = static_cast<uint16_t>(value.size());
    std::memcpy(slot.key, value.data(), value.size());
    std::memcpy(slot.pseudonym, out, kPseudonymChars);
}

void random_pseudonym_key(unsigned char key[kPseudonymKeyBytes]) {
    if (sodium_init() < 0) fail(ErrorKind::Internal, "libsodium could not be initialized");
    randombytes_buf(key, kPseudonymKeyBytes);
}

}  // namespace privrisk
