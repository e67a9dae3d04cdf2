// Risk profiles as stored (stored_profile.hpp).
#include "profiles/stored_profile.hpp"

#include <limits>

#include "ck/ck_safety.hpp"
#include "common/args.hpp"
#include "common/error.hpp"

namespace privrisk::pg {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

const std::vector<OptionSpec>& profile_specs() {
    static const std::vector<OptionSpec> specs = {
        {OptionSpec::Integer, "k", 1, 9.3e18},
        {OptionSpec::Number, "max_risk", 0, 1, true},
        {OptionSpec::Number, "average_risk", 0, 1, true},
        {OptionSpec::Number, "records_at_risk", 0, 1},
        {OptionSpec::Number, "risk_threshold", 0, 1},
        {OptionSpec::Number, "l", 1, 1e9},
        {OptionSpec::String, "l_kind", 0, 0, false, 0, true, {"distinct", "entropy", "recursive"}},
        {OptionSpec::Number, "l_c", 0, kInf, true},
        {OptionSpec::Number, "t", 0, 1},
        {OptionSpec::String, "t_kind", 0, 0, false, 0, true, {"equal", "ordered", "hierarchical"}},
        {OptionSpec::String, "t_hierarchy", 0, 0, false, 0, true},
        {OptionSpec::Number, "delta", 0, 1e9, true},
        {OptionSpec::Number, "c", 0, 1, true},
        {OptionSpec::Integer, "ck_k", 0, double(kMaxCkK)},
        {OptionSpec::Number, "dt_risk", 0, kInf},
        {OptionSpec::Number, "epsilon", 0, kInf, true},
    };
    return specs;
}

}  // namespace

RiskProfile parse_thresholds(Datum thresholds) {
    check_json_options(thresholds, "thresholds", "profile key", profile_specs());
    refuse_unknown(json_keys(thresholds), profile_specs(), "profile key(s)",
                   (std::string("known keys: ") + kProfileKeys).c_str());
    return RiskProfile::from_texts(json_option_texts(thresholds));
}

bool owners_by_identity(Spi& spi) {
    spi.run("SELECT pg_catalog.count(*) FROM pg_catalog.pg_attribute "
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
