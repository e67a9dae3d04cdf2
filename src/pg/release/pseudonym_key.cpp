// The pseudonym key's catalog side: made, rotated, and read for a scan, always
// as the catalog's owner after the caller's rights were checked. The key goes in
// and out of SQL as hex text in a parameter or a result, wiped after use.
#include "release/pseudonym_key.hpp"

#include <cstring>

#include "common/catalog_owner.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/spi.hpp"
#include "release/policy_catalog.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace privrisk::pg {
namespace {

// A new random key, as hex (what decode(…, 'hex') reads).
std::string random_key_hex() {
    unsigned char key[kPseudonymKeyBytes];
    random_pseudonym_key(key);
    std::string hex(2 * kPseudonymKeyBytes, '\0');
    sodium_bin2hex(hex.data(), hex.size() + 1, key, sizeof key);
    sodium_memzero(key, sizeof key);
    return hex;
}

// Writes a new key for `policy`: `replace` an existing one, else only when there is none.
void write_key(const std::string& policy, bool replace) {
    std::string hex = random_key_hex();
    {
        AsCatalogOwner owner;
        Spi spi;
        spi.run(replace ? "INSERT INTO privrisk.pseudonym_key(policy, secret) VALUES ($1, "
                          "pg_catalog.decode($2, 'hex')) ON CONFLICT (policy) DO UPDATE SET secret = "
                          "EXCLUDED.secret, created_at = pg_catalog.now()"
                        : "INSERT INTO privrisk.pseudonym_key(policy, secret) VALUES ($1, "
                          "pg_catalog.decode($2, 'hex')) ON CONFLICT (policy) DO NOTHING",
                {text_arg(policy), text_arg(hex)}, false);
        spi.finish();
    }
    sodium_memzero(hex.data(), hex.size());
}

}  // namespace

bool pseudonymizable_type(Oid type) {
    switch (pg_call([&] { return getBaseType(type); })) {
        case TEXTOID:
        case VARCHAROID:
        case BPCHAROID:
        case NAMEOID:
        case INT2OID:
        case INT4OID:
        case INT8OID:
        case NUMERICOID:
        case UUIDOID:
        case BOOLOID:
        case DATEOID:  // in ISO form whatever DateStyle says (value_text)
            return true;
        default:
            return false;
    }
}

void ensure_pseudonym_key(const std::string& policy) { write_key(policy, false); }

Pseudonymizer* load_pseudonymizer(const std::string& policy, MemoryContext context) {
    std::string hex;
    {
        AsCatalogOwner owner;
        Spi spi;
        if (spi.run("SELECT pg_catalog.encode(secret, 'hex') FROM privrisk.pseudonym_key "
                    "WHERE policy OPERATOR(pg_catalog.=) $1",
                    {text_arg(policy)}, true) > 0)
            hex = spi.string(0, 1);
        spi.finish();
    }
    unsigned char key[kPseudonymKeyBytes];
    std::size_t length = 0;
    const bool valid = hex.size() == 2 * kPseudonymKeyBytes &&
                       sodium_hex2bin(key, sizeof key, hex.data(), hex.size(), nullptr, &length, nullptr) == 0 &&
                       length == kPseudonymKeyBytes;
    sodium_memzero(hex.data(), hex.size());
    if (!valid)
        fail(ErrorKind::InvalidParameter,
             "policy " + quote_value(policy) +
                 " pseudonymizes a column but has no pseudonym key; its owner makes one with "
                 "privrisk.rotate_pseudonym_key(policy)");
    auto* p =
        static_cast<Pseudonymizer*>(pg_call([&] { return MemoryContextAllocZero(context, sizeof(Pseudonymizer)); }));
    pseudonymizer_init(p, key);
    sodium_memzero(key, sizeof key);
    return p;
}

}  // namespace privrisk::pg

// rotate_pseudonym_key(policy): the owner replaces the key (or makes one); every
// pseudonym of the policy's releases changes. One error for a policy that does
// not exist and one whose source the caller does not own.
PRIVRISK_FUNCTION(privrisk_rotate_pseudonym_key) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    Policy policy = load_owned_policy(name);
    write_key(policy.name, true);
    PG_RETURN_VOID();
}
