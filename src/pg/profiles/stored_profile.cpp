// Risk profiles as stored (stored_profile.hpp).
#include "profiles/stored_profile.hpp"

#include "common/args.hpp"
#include "common/error.hpp"
#include "profiles/bound_keys.hpp"

namespace privrisk::pg {

RiskProfile parse_thresholds(Datum thresholds) {
    const std::vector<OptionSpec> specs = option_specs(kProfileKey);
    check_json_options(thresholds, "thresholds", "profile key", specs);
    refuse_unknown(json_keys(thresholds), specs, "profile key(s)",
                   (std::string("known keys: ") + kProfileKeys).c_str());
    return RiskProfile::from_texts(json_option_texts(thresholds));
}

bool owners_by_identity(Spi& spi) {
    spi.run(
        "SELECT pg_catalog.count(*) FROM pg_catalog.pg_attribute "
        "WHERE attrelid OPERATOR(pg_catalog.=) 'privrisk.risk_profile'::pg_catalog.regclass "
        "AND attname OPERATOR(pg_catalog.=) 'owner_name' AND NOT attisdropped",
        {}, true);
    return spi.int8(0, 1) > 0;
}

std::optional<StoredProfile> find_profile(Spi& spi, const std::string& name) {
    const bool identity = owners_by_identity(spi);
    if (spi.run(identity ? "SELECT thresholds::pg_catalog.text, owner::pg_catalog.oid::pg_catalog.int8, "
                           "owner_name::pg_catalog.text FROM privrisk.risk_profile "
                           "WHERE name OPERATOR(pg_catalog.=) $1"
                         : "SELECT thresholds::pg_catalog.text, NULL::pg_catalog.int8, owner::pg_catalog.text "
                           "FROM privrisk.risk_profile WHERE name OPERATOR(pg_catalog.=) $1",
                {text_arg(name)}, true) == 0)
        return std::nullopt;
    StoredProfile p{spi.string(0, 1), std::nullopt, spi.string(0, 3), std::nullopt};
    std::optional<Oid> owner;
    if (!spi.null(0, 2)) owner = static_cast<Oid>(spi.int8(0, 2));
    if (!identity) {  // 0.13: the role of that name, if any
        const char* role = p.owner_name.c_str();
        Oid id = pg_call([&] { return get_role_oid(role, true); });
        if (OidIsValid(id)) owner = id;
    }
    if (owner) {
        Oid id = *owner;
        p.owner = id;
        const char* now = pg_call([&] { return GetUserNameFromId(id, true); });
        if (now) p.owner_now = std::string(now);
    }
    return p;
}

StoredProfile load_profile(Spi& spi, const std::string& name) {
    auto p = find_profile(spi, name);
    if (!p) fail(ErrorKind::UndefinedObject, "risk profile " + quote_value(name) + " does not exist");
    return *p;
}

}  // namespace privrisk::pg
