#include "release/release_verdict.hpp"

#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/spi.hpp"
#include "measures/audit_log.hpp"
#include "release/release_trace.hpp"

namespace privrisk::pg {

void bind_verdict(Oid view, const std::string& policy, const std::string& profile, bool override) {
    Spi spi;
    // As audit() and record_audit() take them: the labels of the policy's source (a
    // release view has none of its own), the profile's options. Read-write: the
    // view was created by this statement.
    spi.run(
        "SELECT v.audit OPERATOR(pg_catalog.#>>) '{verdict,publishable}', "
        "v.audit OPERATOR(pg_catalog.#>>) '{verdict,summary}', v.audit::pg_catalog.text, "
        "pg_catalog.jsonb_build_object('quasi_identifiers', a.quasi_identifiers, 'sensitive', a.sensitive, "
        "'hierarchies', a.hierarchies, 'levels', NULL, 'options', '{}'::pg_catalog.jsonb, 'profile', $2, "
        "'create_release_view', pg_catalog.jsonb_build_object('policy', $3, 'override', true))::pg_catalog.text, "
        "$1::pg_catalog.text "
        "FROM privrisk.labelled_arguments($1, NULL, NULL, NULL, 'create_release_view') AS a, "
        "LATERAL (SELECT privrisk.audit($1, a.quasi_identifiers, a.sensitive, a.hierarchies, NULL, "
        "'{}'::pg_catalog.jsonb, $2) AS audit) AS v",
        {oid_arg(REGCLASSOID, view), text_arg(profile), text_arg(policy)}, false);
    if (spi.null(0, 1)) fail(ErrorKind::Internal, "create_release_view: audit() gave no verdict");
    const bool publishable = spi.string(0, 1) == "true";
    const std::string summary = spi.null(0, 2) ? std::string() : spi.string(0, 2);
    const std::string result = spi.string(0, 3), settings = spi.string(0, 4), source = spi.string(0, 5);
    if (publishable) {
        spi.finish();
        return;
    }
    if (!override)
        fail(ErrorKind::InvalidParameter,
             "create_release_view: the release of policy " + quote_value(policy) + " fails risk profile " +
                 quote_value(profile) + " (" + summary +
                 "); nothing was created. Change the policy, or create the "
                 "view anyway with the argument override set to true: privrisk.audit_log records that");
    append_audit_log(spi, source, settings, result, release_trace(view));
    spi.finish();
    const std::string message = "create_release_view: " + source + " publishes the release of policy " +
                                quote_value(policy) + " although it fails risk profile " + quote_value(profile) + " (" +
                                summary + "); the override is recorded in privrisk.audit_log";
    pg_call([&] { ereport(WARNING, (errmsg("%s", message.c_str()))); });
}

}  // namespace privrisk::pg
