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

namespace {

// Each byte's two hex digits, looked up at once (the per-row path of a release).
struct HexPairs {
    char pairs[256][2];
    constexpr HexPairs() : pairs() {
        const char digits[] = "0123456789abcdef";
        for (int b = 0; b < 256; ++b) {
            pairs[b][0] = digits[b >> 4];
            pairs[b][1] = digits[b & 15];
        }
    }
};
constexpr HexPairs kHexPairs;

}  // namespace

void pseudonym(const Pseudonymizer* p, std::string_view value, char out[kPseudonymChars]) {
    unsigned char mac[kPseudonymBytes];
    pseudonym_prf(p, value, mac);
    for (std::size_t i = 0; i < kPseudonymBytes; ++i) std::memcpy(out + 2 * i, kHexPairs.pairs[mac[i]], 2);
}

std::string pseudonym(const Pseudonymizer* p, std::string_view value) {
    std::string out(kPseudonymChars, '\0');
    pseudonym(p, value, out.data());
    return out;
}

void cached_pseudonym(PseudonymCache* cache, const Pseudonymizer* p, std::string_view value,
                      char out[kPseudonymChars]) {
    if (value.size() > PseudonymCache::kMaxKey) return pseudonym(p, value, out);
    if (cache->bypass > 0) {
        --cache->bypass;
        return pseudonym(p, value, out);
    }
    if (++cache->lookups == PseudonymCache::kSample) {
        if (cache->hits * 4 < PseudonymCache::kSample) cache->bypass = PseudonymCache::kBypass;
        cache->lookups = cache->hits = 0;
    }
    const uint64_t h = FlatIndex::hash(value) | 1;
    PseudonymCache::Slot& slot = cache->slots[(h >> 17) & (PseudonymCache::kSlots - 1)];
    if (slot.hash == h && slot.length == value.size() && std::memcmp(slot.key, value.data(), value.size()) == 0) {
        ++cache->hits;
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
