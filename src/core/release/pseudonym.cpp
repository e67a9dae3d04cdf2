#include "release/pseudonym.hpp"

#include <cstring>

#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

static_assert(kPseudonymKeyBytes == crypto_kdf_KEYBYTES, "the stored key is the KDF's master key");

void pseudonymizer_init(Pseudonymizer* p, const unsigned char key[kPseudonymKeyBytes]) {
    if (sodium_init() < 0) fail(ErrorKind::Internal, "libsodium could not be initialized");
    // Subkey 1 in the context "pseudonm": BLAKE2b keyed with the stored key (salt 1, personal "pseudonm").
    crypto_kdf_derive_from_key(p->key, sizeof p->key, 1, "pseudonm", key);
}

void pseudonymizer_init_prf(Pseudonymizer* p, const unsigned char key[crypto_shorthash_siphashx24_KEYBYTES]) {
    std::memcpy(p->key, key, sizeof p->key);
}

void pseudonymizer_wipe(Pseudonymizer* p) { sodium_memzero(p, sizeof *p); }

void pseudonym_prf(const Pseudonymizer* p, std::string_view value, unsigned char out[kPseudonymBytes]) {
    crypto_shorthash_siphashx24(out, reinterpret_cast<const unsigned char*>(value.data()), value.size(), p->key);
}

void pseudonym(const Pseudonymizer* p, std::string_view value, char out[kPseudonymChars]) {
    static const char digits[] = "0123456789abcdef";
    unsigned char mac[kPseudonymBytes];
    pseudonym_prf(p, value, mac);
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
