// Risk profiles (docs/profiles.md): create_profile, drop_profile, and the
// internal profile_options behind audit(…, profile), search(…, profile) and
// check() (stored_profile.hpp keeps the catalog side, profile_verdict.cpp the
// verdict).
#include <cctype>

#include "ck/ck_safety.hpp"
#include "common/catalog_owner.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/json_text.hpp"
#include "common/spi.hpp"
#include "profiles/bound_keys.hpp"
#include "profiles/profile_name.hpp"
#include "profiles/risk_profile.hpp"
#include "profiles/stored_profile.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

constexpr std::size_t kMaxDescriptionBytes = 2000;

// A profile's name is what a verdict cites: letters, digits, '_', '-' and '.', so
// that no two names look alike (no spaces, no invisible or look-alike characters).
void check_profile_name(const std::string& name) {
    check_object_name("profile", name);
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 0x80) && c != '_' &&
            c != '-' && c != '.')
            fail(ErrorKind::InvalidParameter,
                 "profile name " + quote_value(name) + " may hold ASCII letters, digits, '_', '-' and '.' only");
}

// Who may replace or drop a profile: the owner role's members; an orphan's, a superuser only.
void require_profile_owner(const std::string& name, const StoredProfile& p) {
    if (!p.owner_now) {
        if (!pg_call([] { return superuser(); }))
            fail(ErrorKind::PermissionDenied, "risk profile " + quote_value(name) + " is orphaned: its owner role " +
                                                  quote_value(p.owner_name) +
                                                  " no longer exists, and only a superuser can replace or drop it");
        return;
    }
    Oid owner = *p.owner;
    if (!pg_call([&] { return has_privs_of_role(GetUserId(), owner); }))
        fail(ErrorKind::PermissionDenied, "risk profile " + quote_value(name) + " belongs to role " +
                                              quote_value(*p.owner_now) + ": only its members can change it");
}

// A new name must not look like an existing profile's: same key (profile_name.hpp).
// Stored names are ASCII, so their key is their lower case.
void refuse_look_alike(Spi& spi, const std::string& name) {
    if (spi.run("SELECT name FROM privrisk.risk_profile "
                "WHERE pg_catalog.lower(name COLLATE pg_catalog.\"C\") OPERATOR(pg_catalog.=) $1 "
                "AND name OPERATOR(pg_catalog.<>) $2 LIMIT 1",
                {text_arg(profile_name_key(name)), text_arg(name)}, true) > 0)
        fail(ErrorKind::DuplicateObject, "risk profile name " + quote_value(name) +
                                             " looks like the existing profile " + quote_value(spi.string(0, 1)) +
                                             ": names are compared without case and invisible characters");
}

}  // namespace

// create_profile(name, thresholds jsonb, description text, replace boolean)
PRIVRISK_FUNCTION(privrisk_create_profile) {
    std::string name(text_arg_view(fcinfo, 0, "profile name"));
    check_object_name("profile", name);
    if (PG_ARGISNULL(1))
        fail(ErrorKind::InvalidParameter, "create_profile: thresholds must be a JSON object, got NULL");
    parse_thresholds(PG_GETARG_DATUM(1));
    std::string thresholds = jsonb_text(PG_GETARG_DATUM(1));
    std::optional<std::string> description;
    if (!PG_ARGISNULL(2)) description = std::string(text_view(PG_GETARG_DATUM(2)));
    if (description && description->size() > kMaxDescriptionBytes)
        fail(ErrorKind::ProgramLimit, "create_profile: a description has at most " +
                                          std::to_string(kMaxDescriptionBytes) + " bytes, got " +
                                          std::to_string(description->size()));
    bool replace = !PG_ARGISNULL(3) && PG_GETARG_BOOL(3);
    Spi spi;
    refuse_look_alike(spi, name);
    check_profile_name(name);
    auto existing = find_profile(spi, name);
    if (existing && !replace)
        fail(ErrorKind::DuplicateObject,
             "risk profile " + quote_value(name) + " already exists (replace => true replaces it)");
    if (existing) require_profile_owner(name, *existing);
    // The owner: kept on a replace (its current name recorded), the caller's when new or when a
    // superuser replaces an orphan.
    Oid owner = existing && existing->owner_now ? *existing->owner : pg_call([] { return GetUserId(); });
    const char* owner_name = pg_call([&] { return GetUserNameFromId(owner, false); });
    {
        AsCatalogOwner as_owner;
        SpiArg d = description ? text_arg(*description) : SpiArg{TEXTOID, 0, true};
        const bool identity = owners_by_identity(spi);
        if (existing && identity)
            spi.run(
                "UPDATE privrisk.risk_profile SET thresholds = $2::pg_catalog.jsonb, "
                "description = $3, owner = $4, owner_name = $5::pg_catalog.name, "
                "created_at = pg_catalog.now() WHERE name OPERATOR(pg_catalog.=) $1",
                {text_arg(name), text_arg(thresholds), d, oid_arg(REGROLEOID, owner), text_arg(owner_name)}, false);
        else if (existing)  // a 0.13 catalog: the owner's name
            spi.run(
                "UPDATE privrisk.risk_profile SET thresholds = $2::pg_catalog.jsonb, "
                "description = $3, owner = $4::pg_catalog.name, "
                "created_at = pg_catalog.now() WHERE name OPERATOR(pg_catalog.=) $1",
                {text_arg(name), text_arg(thresholds), d, text_arg(owner_name)}, false);
        else if (identity)
            spi.run(
                "INSERT INTO privrisk.risk_profile(name, thresholds, "
                "description, owner, owner_name) "
                "VALUES ($1, $2::pg_catalog.jsonb, $3, $4, $5::pg_catalog.name)",
                {text_arg(name), text_arg(thresholds), d, oid_arg(REGROLEOID, owner), text_arg(owner_name)}, false);
        else
            spi.run(
                "INSERT INTO privrisk.risk_profile(name, thresholds, "
                "description, owner) "
                "VALUES ($1, $2::pg_catalog.jsonb, $3, $4::pg_catalog.name)",
                {text_arg(name), text_arg(thresholds), d, text_arg(owner_name)}, false);
    }
    spi.finish();
    PG_RETURN_VOID();
}

// drop_profile(name)
PRIVRISK_FUNCTION(privrisk_drop_profile) {
    std::string name(text_arg_view(fcinfo, 0, "profile name"));
    Spi spi;
    StoredProfile p = load_profile(spi, name);
    require_profile_owner(name, p);
    {
        AsCatalogOwner owner;
        spi.run(
            "DELETE FROM privrisk.risk_profile WHERE name "
            "OPERATOR(pg_catalog.=) $1",
            {text_arg(name)}, false);
    }
    spi.finish();
    PG_RETURN_VOID();
}

// profile_options(profile, kind): what audit() must compute for the profile
// ('audit': its options) or the search's constraints ('search').
PRIVRISK_FUNCTION(privrisk_profile_options) {
    std::string name(text_arg_view(fcinfo, 0, "profile"));
    std::string_view kind = text_arg_view(fcinfo, 1, "kind");
    Spi spi;
    StoredProfile stored = load_profile(spi, name);
    spi.finish();
    RiskProfile profile = parse_thresholds(jsonb_datum(stored.thresholds));
    std::string json = "{";
    auto add = [&](const std::string& key, const std::string& value) {  // the kinds and hierarchies are strings
        const bool text = bound_key(key).kind == BoundKey::Text;
        json += (json.size() > 1 ? ", " : "") + json_string(key) + ": " + (text ? json_string(value) : value);
    };
    if (kind == "audit") {
        // Under the older names too (kmax, sensitive_hierarchy), with the same value: a caller's
        // older name then meets the profile's value, and a 0.14 audit() not yet updated reads them.
        for (const auto& [key, value] : profile.audit_options) {
            add(key, value);
            if (const char* alias = bound_key(key).alias) add(alias, value);
        }
    } else if (kind == "search") {
        if (!profile.not_for_search.empty())
            fail(ErrorKind::InvalidParameter, "search: risk profile " + quote_value(name) + " sets " +
                                                  profile.not_for_search +
                                                  ", which is not a search constraint: the search takes k, "
                                                  "max_risk, average_risk, l, t, delta and c with ck_k; "
                                                  "check its result with privrisk.check");
        for (const auto& [key, value] : profile.search_constraints) add(key, value);
    } else {
        fail(ErrorKind::InvalidParameter, "kind must be audit or search, got " + quote_value(kind));
    }
    return jsonb_datum(json + "}");
}
