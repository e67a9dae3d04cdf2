#include "dp/dp_random.hpp"

#include <cmath>
#include <cstring>

#include <sodium.h>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {
namespace {

// Independent keys per stream: BLAKE2b of the secret with the stream's label.
template <std::size_t N>
std::array<unsigned char, N> derive(const DpRandom::Secret& secret, const char* label) {
    std::array<unsigned char, N> out{};
    crypto_generichash(out.data(), N, reinterpret_cast<const unsigned char*>(label), std::strlen(label), secret.data(),
                       secret.size());
    return out;
}

const char* const kRowLabels[4] = {"privrisk row sample", "privrisk row choice", "privrisk row threshold",
                                   "privrisk row shuffle"};
const char* const kRunLabels[4] = {"privrisk run sample", "privrisk run choice", "privrisk run threshold",
                                   "privrisk run shuffle"};

}  // namespace

DpRandom::DpRandom(const Secret& secret) {
    if (sodium_init() < 0) fail(ErrorKind::Internal, "libsodium could not be initialized");
    for (int s = 0; s < 4; ++s) {
        row_keys_[s] = derive<16>(secret, kRowLabels[s]);
        stream_keys_[s] = derive<32>(secret, kRunLabels[s]);
    }
}

DpRandom DpRandom::from_seed(int64_t seed) {
    unsigned char bytes[8];
    for (int i = 0; i < 8; ++i) bytes[i] = static_cast<unsigned char>(uint64_t(seed) >> (8 * i));
    Secret secret{};
    const char label[] = "privrisk seed";
    crypto_generichash(secret.data(), secret.size(), bytes, sizeof bytes, reinterpret_cast<const unsigned char*>(label),
                       sizeof label - 1);
    return DpRandom(secret);
}

uint64_t DpRandom::row_word(DpStream stream, const void* id, std::size_t n) const {
    unsigned char out[crypto_shorthash_siphash24_BYTES];
    crypto_shorthash_siphash24(out, static_cast<const unsigned char*>(id), n, row_keys_[int(stream)].data());
    uint64_t w;
    std::memcpy(&w, out, sizeof w);
    return w;
}

int64_t DpRandom::sampled_rows(const void* id, std::size_t n, int64_t rows, uint64_t threshold,
                               const std::function<void()>& every_65536) const {
    // The class's own key (SipHash-128 of its identity), then one word per row
    // number under it: one pass over the identity, however many rows it has.
    static_assert(crypto_shorthash_siphashx24_BYTES == crypto_shorthash_siphash24_KEYBYTES);
    unsigned char key[crypto_shorthash_siphashx24_BYTES];
    crypto_shorthash_siphashx24(key, static_cast<const unsigned char*>(id), n, row_keys_[int(DpStream::Sample)].data());
    int64_t sampled = 0;
    for (int64_t j = 1; j <= rows; ++j) {
        unsigned char number[8], out[crypto_shorthash_siphash24_BYTES];
        for (int b = 0; b < 8; ++b) number[b] = static_cast<unsigned char>(uint64_t(j) >> (8 * b));
        crypto_shorthash_siphash24(out, number, sizeof number, key);
        uint64_t w;
        std::memcpy(&w, out, sizeof w);
        sampled += w < threshold;
        if ((j & 0xFFFF) == 0 && every_65536) every_65536();
    }
    return sampled;
}

std::string sample_identity(const std::vector<std::optional<std::string_view>>& values) {
    std::string id;
    for (const auto& v : values) {
        if (!v) {
            id.push_back('\0');
            continue;
        }
        id.push_back('\1');
        const uint64_t length = v->size();
        if (length > UINT32_MAX) fail(ErrorKind::ProgramLimit, "a released value is longer than 4 GB");
        for (int b = 0; b < 4; ++b) id.push_back(static_cast<char>(length >> (8 * b)));
        id.append(v->data(), v->size());
    }
    return id;
}

uint64_t DpRandom::inclusion_threshold(double p) {
    if (!(p >= 0) || !(p < 1))
        fail(ErrorKind::InvalidParameter, "a sampling probability must be in [0, 1), got " + number_text(p));
    // p·2^64 is exact in binary; truncating it rounds down.
    return static_cast<uint64_t>(std::ldexp(p, 64));
}

std::vector<uint64_t> DpRandom::run_words(DpStream stream, std::size_t count) const {
    std::vector<uint64_t> words(count);
    randombytes_buf_deterministic(words.data(), count * sizeof(uint64_t), stream_keys_[int(stream)].data());
    return words;
}

}  // namespace privrisk
