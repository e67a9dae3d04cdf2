// Risk profiles (docs/profiles.md): create_profile, drop_profile, and the
// internal profile_options / profile_verdict behind audit(…, profile),
// search(…, profile) and check(). A profile is stored as its thresholds jsonb,
// checked whole here before it is written, and parsed again where it is used.
#include <cctype>
#include <limits>

#include "ck/ck_safety.hpp"
#include "common/catalog_owner.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/json_text.hpp"
#include "common/spi.hpp"
#include "profiles/profile_name.hpp"
#include "profiles/risk_profile.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

constexpr std::size_t kMaxDescriptionBytes = 2000;

// A profile's name is what a verdict cites: letters, digits, '_', '-' and '.', so
// that no two names look alike (no spaces, no invisible or look-alike characters).
void check_profile_name(const std::string& name) {
    check_object_name("profile", name);
    for (char c : name)
        if (!(std::isalnum(static_cast<unsigned char>(c)) && static_cast<unsigned char>(c) < 0x80) && c != '_' &&
            c != '-' && c != '.')
            fail(ErrorKind::InvalidParameter, "profile name " + quote_value(name) +
                                                  " may hold ASCII letters, digits, '_', '-' and '.' only");
}

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

RiskProfile parse_thresholds(Datum thresholds) {
    check_json_options(thresholds, "thresholds", "profile key", profile_specs());
    refuse_unknown(json_keys(thresholds), profile_specs(), "profile key(s)",
                   (std::string("known keys: ") + kProfileKeys).c_str());
    return RiskProfile::from_texts(json_option_texts(thresholds));
}

// A profile as stored. Its owner is a role's identity (regrole): a role
// dropped and made again under the same name is another role. An orphan's
// owner is gone (dropped, or not found when a dump was restored).
struct StoredProfile {
    std::string thresholds;  // jsonb text
    std::optional<Oid> owner;  // nullopt: orphaned on restore
    std::string owner_name;    // the owner's name when the profile was last written
    std::optional<std::string> owner_now;  // the owner role's name; nullopt: orphaned
};

// Whether the catalog keeps owners by identity (0.14); a 0.13 catalog not yet updated keeps a
// name in `owner`, and this library keeps working with it until ALTER EXTENSION … UPDATE.
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
        fail(ErrorKind::DuplicateObject, "risk profile name " + quote_value(name) + " looks like the existing profile " +
                                             quote_value(spi.string(0, 1)) +
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
        const bool text = key == "l_kind" || key == "t_kind" || key == "t_hierarchy" || key == "sensitive_hierarchy";
        json += (json.size() > 1 ? ", " : "") + json_string(key) + ": " + (text ? json_string(value) : value);
    };
    if (kind == "audit") {
        for (const auto& [key, value] : profile.audit_options) add(key, value);
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

// profile_verdict(profile, audit jsonb, source regclass): each threshold of the
// profile against audit()'s report of the release, and the verdict.
PRIVRISK_FUNCTION(privrisk_profile_verdict) {
    std::string name(text_arg_view(fcinfo, 0, "profile"));
    if (PG_ARGISNULL(1) || PG_ARGISNULL(2))
        fail(ErrorKind::InvalidParameter, "profile_verdict: audit and source must not be NULL");
    std::string audit = jsonb_text(PG_GETARG_DATUM(1));
    Oid source = PG_GETARG_OID(2);
    Spi spi;
    StoredProfile stored = load_profile(spi, name);
    RiskProfile profile = parse_thresholds(jsonb_datum(stored.thresholds));
    auto measure_of = [&](const Threshold& t, std::string* why) -> std::optional<double> {
        if (t.measure == "epsilon") {
            spi.run(
                "SELECT pg_catalog.max(epsilon) FROM privrisk.budget_ledger "
                "WHERE relation OPERATOR(pg_catalog.=) $1",
                {oid_arg(REGCLASSOID, source)}, true);
            if (spi.null(0, 1)) *why = "no DP release of this table is recorded";
            return spi.null(0, 1) ? std::nullopt : std::optional<double>(spi.float8(0, 1));
        }
        std::vector<std::string> path{t.measure};
        if (t.measure == "ck_max_disclosure") path = {"ck_disclosure_curve", profile.audit_options.at("kmax")};
        if (t.measure == "dt_risk") path = {"dt_risk", "risk"};
        // The measure; else whether audit() reported it at all, and whether the release has a
        // sensitive column (audit() reports l_distinct then), to say why it is missing.
        spi.run(
            "SELECT ($1::pg_catalog.jsonb OPERATOR(pg_catalog.?) "
            "$3)::pg_catalog.text, "
            "($1::pg_catalog.jsonb OPERATOR(pg_catalog.#>>) "
            "$2::pg_catalog.text[])::pg_catalog.float8, "
            "($1::pg_catalog.jsonb OPERATOR(pg_catalog.?) 'l_distinct')::pg_catalog.text",
            {text_arg(audit), text_array_arg(path), text_arg(path.front())}, true);
        if (!spi.null(0, 2)) return spi.float8(0, 2);
        bool reported = spi.string(0, 1) == "true";
        bool sensitive = spi.string(0, 3) == "true";
        *why = reported                     ? "no row is released"
               : t.measure == "dt_risk"     ? "no dictionary: give the audit option dictionary"
               : !sensitive                 ? "no sensitive column"
               : t.measure == "t_ordered"   ? "t_ordered needs numeric sensitive values"
               : t.measure == "t_hierarchical" ? "no hierarchy of the sensitive values"
                                               : "audit() does not report it for this release";
        return std::nullopt;
    };
    Verdict v = evaluate(profile, measure_of);
    spi.finish();
    std::string json = "{\"profile\": " + json_string(name) + ", \"profile_owner\": " +
                       (stored.owner_now ? json_string(*stored.owner_now) : std::string("null")) +
                       ", \"profile_orphaned\": " + (stored.owner_now ? "false" : "true") +
                       (stored.owner_now ? std::string() : ", \"profile_owner_was\": " + json_string(stored.owner_name)) +
                       ", \"publishable\": " + (v.publishable ? "true" : "false") +
                       ", \"summary\": " + json_string(v.summary) + ", \"checks\": [";
    for (std::size_t i = 0; i < v.checks.size(); ++i) {
        const ThresholdCheck& c = v.checks[i];
        json += std::string(i ? ", " : "") + "{\"key\": " + json_string(c.threshold->key) +
                ", \"measure\": " + json_string(c.threshold->measure) + ", \"value\": " + json_number(c.value) +
                ", \"comparison\": " + json_string(comparison_symbol(c.threshold->comparison)) +
                ", \"threshold\": " + json_number(c.threshold->value) +
                ", \"passed\": " + (c.passed ? "true" : "false") + ", \"margin\": " + json_number(c.margin) +
                ", \"note\": " + (c.why.empty() ? std::string("null") : json_string(c.why)) + "}";
    }
    return jsonb_datum(json + "]}");
}
