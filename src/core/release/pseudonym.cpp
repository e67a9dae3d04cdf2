#include "release/pseudonym.hpp"

#include <cstring>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

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

// The 16 bytes as 32 lowercase hex digits, all at once: each byte's nibbles are
// spread to two bytes and mapped to '0'-'9' or 'a'-'f' (the per-row path of a release).
void hex16(const unsigned char in[16], char out[32]) {
#if defined(__SSE2__)
    const __m128i bytes = _mm_loadu_si128(reinterpret_cast<const __m128i*>(in));
    const __m128i low_nibble = _mm_set1_epi8(0x0f);
    const __m128i high = _mm_and_si128(_mm_srli_epi16(bytes, 4), low_nibble);
    const __m128i low = _mm_and_si128(bytes, low_nibble);
    auto digits = [](__m128i nibbles) {
        // '0' + n, and 'a' - '0' - 10 more where n > 9
        const __m128i letters = _mm_and_si128(_mm_cmpgt_epi8(nibbles, _mm_set1_epi8(9)), _mm_set1_epi8('a' - '0' - 10));
        return _mm_add_epi8(_mm_add_epi8(nibbles, _mm_set1_epi8('0')), letters);
    };
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out), digits(_mm_unpacklo_epi8(high, low)));
    _mm_storeu_si128(reinterpret_cast<__m128i*>(out + 16), digits(_mm_unpackhi_epi8(high, low)));
#else
    static const char digits[] = "0123456789abcdef";
    for (int i = 0; i < 16; ++i) {
        out[2 * i] = digits[in[i] >> 4];
        out[2 * i + 1] = digits[in[i] & 15];
    }
#endif
}

}  // namespace

void pseudonym(const Pseudonymizer* p, std::string_view value, char out[kPseudonymChars]) {
    static_assert(kPseudonymBytes == 16, "hex16 writes 16 bytes' digits");
    unsigned char mac[kPseudonymBytes];
    pseudonym_prf(p, value, mac);
    hex16(mac, out);
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
