#include "common/digest.hpp"

#include "common/error.hpp"
#include "common/guard.hpp"

extern "C" {
#include "common/cryptohash.h"
#include "common/sha2.h"
}

namespace privrisk::pg {

std::string Digest::hex() const {
    uint8 sum[PG_SHA256_DIGEST_LENGTH];
    bool ok = pg_call([&] {
        pg_cryptohash_ctx* ctx = pg_cryptohash_create(PG_SHA256);
        bool done = ctx && pg_cryptohash_init(ctx) == 0 &&
                    pg_cryptohash_update(ctx, reinterpret_cast<const uint8*>(bytes_.data()), bytes_.size()) == 0 &&
                    pg_cryptohash_final(ctx, sum, sizeof sum) == 0;
        pg_cryptohash_free(ctx);
        return done;
    });
    if (!ok) fail(ErrorKind::Internal, "could not compute a SHA-256 digest");
    static const char digits[] = "0123456789abcdef";
    std::string out;
    for (int i = 0; i < kDigestBytes; ++i) {
        out += digits[sum[i] >> 4];
        out += digits[sum[i] & 15];
    }
    return out;
}

}  // namespace privrisk::pg
