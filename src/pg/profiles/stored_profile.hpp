// A risk profile as privrisk.risk_profile stores it (docs/profiles.md): its
// thresholds jsonb, checked whole and parsed where it is used, and its owner.
#pragma once

#include <optional>
#include <string>

#include "common/spi.hpp"
#include "profiles/risk_profile.hpp"

namespace privrisk::pg {

// A profile as stored. Its owner is a role's identity (regrole): a role
// dropped and made again under the same name is another role. An orphan's
// owner is gone (dropped, or not found when a dump was restored).
struct StoredProfile {
    std::string thresholds;                // jsonb text
    std::optional<Oid> owner;              // nullopt: orphaned on restore
    std::string owner_name;                // the owner's name when the profile was last written
    std::optional<std::string> owner_now;  // the owner role's name; nullopt: orphaned
};

// The thresholds jsonb checked against the profile keys and parsed; an error names the key.
RiskProfile parse_thresholds(Datum thresholds);

// Whether the catalog keeps owners by identity (0.14); a 0.13 catalog not yet updated keeps a
// name in `owner`, and this library keeps working with it until ALTER EXTENSION … UPDATE.
bool owners_by_identity(Spi& spi);

std::optional<StoredProfile> find_profile(Spi& spi, const std::string& name);
StoredProfile load_profile(Spi& spi, const std::string& name);  // an error when it does not exist

}  // namespace privrisk::pg
