#include "release/release_trace.hpp"

#include <algorithm>
#include <vector>

#include "common/error.hpp"
#include "common/guard.hpp"
#include "common/json_text.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "release/policy_access.hpp"
#include "release/policy_catalog.hpp"
#include "release/safe_default.hpp"
#include "release/shard_release.hpp"

namespace privrisk::pg {

namespace {

std::string rule_json(const PolicyRule& r) {
    const bool gen = r.op == DisclosureOp::Gen;
    return "{\"rule\": " + std::to_string(r.number) + ", \"column\": " + json_string(r.column) +
           ", \"op\": " + json_string(gen ? "gen" : "hide") + ", \"condition\": " + json_string(r.condition) +
           ", \"hierarchy\": " + (gen ? json_string(r.hierarchy) : "null") +
           ", \"level\": " + (gen ? std::to_string(r.level) : "null") + "}";
}

}  // namespace

std::optional<std::string> release_trace(Oid relation) {
    std::optional<std::string> key = policy_of_view(relation);
    if (!key) return std::nullopt;
    std::optional<Policy> policy = find_policy(*key);
    if (!policy) return std::nullopt;
    std::string json = "{\"policy\": " + json_string(*key);
    if (!reads_source(policy->source))
        return json + ", \"withheld\": \"the policy's rules and digest: only a reader of its source sees them\"}";
    Policy full = *policy;
    add_default_rules(full);
    json += ", \"policy_digest\": " + json_string(policy_digest(full)) + ", \"rules\": [";
    std::vector<std::string> hierarchies;
    for (std::size_t i = 0; i < policy->rules.size(); ++i) {
        const PolicyRule& r = policy->rules[i];
        json += (i ? ", " : "") + rule_json(r);
        if (r.op == DisclosureOp::Gen &&
            std::find(hierarchies.begin(), hierarchies.end(), r.hierarchy) == hierarchies.end())
            hierarchies.push_back(r.hierarchy);
    }
    json += "], \"hidden_by_default\": [";
    std::vector<DefaultHidden> hidden = hidden_by_default(*policy);
    for (std::size_t i = 0; i < hidden.size(); ++i)
        json += std::string(i ? ", " : "") + "{\"column\": " + json_string(hidden[i].column) +
                ", \"reason\": " + json_string(hidden[i].reason) + "}";
    json += "], \"hierarchies\": [";
    std::sort(hierarchies.begin(), hierarchies.end());
    for (std::size_t i = 0; i < hierarchies.size(); ++i) {
        int64 version = 0;
        std::string digest;
        cached_hierarchy(hierarchies[i], &version, &digest);
        json += std::string(i ? ", " : "") + "{\"name\": " + json_string(hierarchies[i]) +
                ", \"version\": " + std::to_string(version) + ", \"digest\": " + json_string(digest) + "}";
    }
    return json + "]}";
}

}  // namespace privrisk::pg
