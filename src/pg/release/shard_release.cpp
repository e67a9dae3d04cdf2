#include "release/shard_release.hpp"

#include <algorithm>
#include <cstring>

#include "common/args.hpp"
#include "common/digest.hpp"
#include "common/error.hpp"
#include "common/spi.hpp"
#include "common/sql_text.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "hierarchy/pinned_hierarchy.hpp"
#include "hierarchy/pinned_hierarchy_type.hpp"
#include "release/policy_access.hpp"
#include "release/view_grants.hpp"

extern "C" {
#include "catalog/pg_inherits.h"
#include "commands/defrem.h"
#include "access/transam.h"
#include "catalog/pg_type.h"
#include "foreign/foreign.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace privrisk::pg {

bool has_foreign_partitions(Oid source) {
    return pg_call([&] {
        if (get_rel_relkind(source) != RELKIND_PARTITIONED_TABLE) return false;
        ListCell* lc;
        foreach (lc, find_all_inheritors(source, AccessShareLock, nullptr))
            if (get_rel_relkind(lfirst_oid(lc)) == RELKIND_FOREIGN_TABLE) return true;
        return false;
    });
}

std::string pin_where(const PinnedHierarchy& pin) {
    return " on server " + quote_value(pin.server.empty() ? std::string("(none named)") : pin.server);
}

std::vector<std::string> policy_digests(const Policy& policy, const std::vector<std::string>& sources) {
    // What every digest shares, written once: the rules (sorted: they compose
    // by maximum, their order changes nothing) and the released columns.
    std::vector<std::string> rules;
    for (const PolicyRule& r : policy.rules) {
        Digest fields;  // one rule's fields, written as one field of the policy's
        fields.add(r.column);
        fields.add(disclosure_op_name(r.op));
        fields.add(r.condition);
        if (r.op == DisclosureOp::Gen) {
            std::string digest;
            cached_hierarchy(r.hierarchy, nullptr, &digest);
            fields.add(r.hierarchy);
            fields.add(digest);
            fields.add(std::to_string(r.level));
        }
        rules.push_back(fields.hex());
    }
    std::sort(rules.begin(), rules.end());
    std::vector<std::string> columns;
    for (const ReleasedColumn& c : release_shape(policy)) {
        columns.push_back(c.name);
        columns.push_back(sql_type(c.type, c.typmod));
    }
    std::vector<std::string> digests;
    for (const std::string& source : sources) {
        Digest sum;
        sum.add("privrisk policy 1");
        if (!source.empty()) {  // a shard's: which table its policy reads
            sum.add("source");
            sum.add(source);
        }
        sum.add(policy.base_name);  // the name alone: a shard names its policy in its own schema
        sum.add(policy.unlabelled_hidden ? "hide" : "publish");
        sum.add(std::to_string(rules.size()));
        for (const std::string& r : rules) sum.add(r);
        for (const std::string& c : columns) sum.add(c);
        digests.push_back(sum.hex());
    }
    return digests;
}

std::string policy_digest(const Policy& policy, const std::string& source) {
    return policy_digests(policy, {source})[0];
}

std::vector<ShardTable> shard_tables(Oid source, const std::string& policy) {
    std::vector<ShardTable> shards;
    if (pg_call([&] { return get_rel_relkind(source); }) != RELKIND_PARTITIONED_TABLE) return shards;
    std::string local, foreign;  // the first of each, for the error
    List* all = pg_call([&] { return find_all_inheritors(source, AccessShareLock, nullptr); });
    for (int i = 0; i < list_length(all); ++i) {
        Oid leaf = list_nth_oid(all, i);
        char kind = pg_call([&] { return get_rel_relkind(leaf); });
        if (kind == RELKIND_PARTITIONED_TABLE) continue;
        std::string name = pg_call([&] {
            return quote_qualified_identifier(get_namespace_name(get_rel_namespace(leaf)), get_rel_name(leaf));
        });
        if (kind != RELKIND_FOREIGN_TABLE) {
            local = name;
            continue;
        }
        if (foreign.empty()) foreign = name;
        ForeignTable* table = pg_call([&] { return GetForeignTable(leaf); });
        std::string server = pg_call([&] { return GetForeignServer(table->serverid)->servername; });
        // The table it reads on the shard: its schema_name and table_name options, else its own names.
        std::string remote_schema = pg_call([&] { return get_namespace_name(get_rel_namespace(leaf)); });
        std::string remote_table = pg_call([&] { return get_rel_name(leaf); });
        ListCell* lc;
        foreach (lc, table->options) {
            DefElem* option = lfirst_node(DefElem, lc);
            if (strcmp(option->defname, "schema_name") == 0)
                remote_schema = pg_call([&] { return defGetString(option); });
            if (strcmp(option->defname, "table_name") == 0)
                remote_table = pg_call([&] { return defGetString(option); });
        }
        shards.push_back(
            {leaf, pg_call([&] { return get_rel_name(leaf); }), server, remote_schema + "." + remote_table});
    }
    if (!shards.empty() && !local.empty())
        fail(ErrorKind::InvalidParameter, "the source of policy " + quote_value(policy) +
                                              " mixes local and foreign partitions: " + local + " is local, " +
                                              foreign +
                                              " is foreign; a release view reads either its own tables or "
                                              "the shards' releases");
    return shards;
}

void create_shard_release_view(const Policy& policy, const std::vector<ReleasedColumn>& shape,
                               const std::vector<ShardTable>& shards, Oid schema, const std::string& view) {
    Policy full = policy;
    add_default_rules(full);
    // The coordinator's digest, then each shard's (which also names the table its partition reads there).
    std::vector<std::string> sources{""};
    for (const ShardTable& shard : shards) sources.push_back(shard.remote);
    const std::vector<std::string> digests = policy_digests(full, sources);
    const std::string& digest = digests[0];
    const std::string schema_name = pg_call([&] { return get_namespace_name(schema); });
    const std::string qualified_schema = sql_identifier(schema_name);
    const std::string columns = column_definitions(shape);
    std::string names;
    for (std::size_t i = 0; i < shape.size(); ++i) names += (i ? ", " : "") + sql_identifier(shape[i].name);
    // The pin rides on a column postgres_fdw ships with it: one of a built-in type
    // (a user type or domain would keep the check here, and it would refuse).
    const ReleasedColumn* carrier = nullptr;
    for (const ReleasedColumn& c : shape)
        if (!carrier && c.type < FirstGenbkiObjectId) carrier = &c;
    if (!carrier)
        fail(ErrorKind::InvalidParameter, "create_release_view: policy " + quote_value(policy.name) +
                                              " releases no column of a built-in type, which the check sent to each "
                                              "shard needs (postgres_fdw ships expressions over built-in types only)");
    std::string union_all;
    Spi spi;  // as the caller: the tables and the view are theirs to grant
    for (std::size_t i = 0; i < shards.size(); ++i) {
        const ShardTable& shard = shards[i];
        const std::string table = view + "_" + std::to_string(i + 1);  // partitions' names may repeat across schemas
        if (table.size() >= NAMEDATALEN)
            fail(ErrorKind::InvalidParameter, "create_release_view: the foreign table for partition " +
                                                  quote_value(shard.name) + " would be named " + quote_value(table) +
                                                  ", longer than 63 bytes: choose a shorter view name");
        const std::string qualified = qualified_schema + "." + sql_identifier(table);
        spi.run(("CREATE FOREIGN TABLE " + qualified + " (" + columns + ") SERVER " + sql_identifier(shard.server) +
                 " OPTIONS (schema_name " + sql_literal(schema_name) + ", table_name " + sql_literal(view) + ")")
                    .c_str(),
                {}, false);
        spi.run(("COMMENT ON FOREIGN TABLE " + qualified + " IS " +
                 sql_literal("privrisk: the release of policy " + policy.name + " on server " + shard.server +
                             " (partition " + shard.name + "; the shard's release view " + schema_name + "." + view +
                             "), read by the view of that name here; drop it with the view"))
                    .c_str(),
                {}, false);
        // A shard whose policy reads another table fails: its digest names the table.
        const std::string pin = PinnedHierarchy{policy.base_name, digests[i + 1], shard.server}.text();
        union_all += (union_all.empty() ? "" : " UNION ALL ") + std::string("SELECT ") + names + " FROM " + qualified +
                     " WHERE privrisk.release_is_pinned(" + sql_identifier(carrier->name) + ", " + sql_literal(pin) +
                     "::privrisk.pinned_policy)";
    }
    // The coordinator's check comes once, before any shard's row (a join's outer
    // side), and keeps the shards' scans direct children of the Append, so they
    // run at the same time (a filter on each would make them run in turn).
    spi.run(("CREATE VIEW " + qualified_schema + "." + sql_identifier(view) +
             " AS WITH pin AS MATERIALIZED (SELECT privrisk.release_policy_is(" + sql_literal(policy.name) + ", " +
             sql_literal(digest) + ") AS checked) SELECT shards.* FROM pin CROSS JOIN (" + union_all + ") AS shards")
                .c_str(),
            {}, false);
    spi.finish();
}

}  // namespace privrisk::pg

// privrisk.pinned_policy: name@digest@server, stored as its canonical text.
PRIVRISK_FUNCTION(privrisk_pinned_policy_in) { return pin_in(PG_GETARG_CSTRING(0), kPinnedPolicy); }
PRIVRISK_FUNCTION(privrisk_pinned_policy_out) { return pin_out(PG_GETARG_DATUM(0)); }
PRIVRISK_FUNCTION(privrisk_pinned_policy_send) { return pin_send(PG_GETARG_DATUM(0)); }
PRIVRISK_FUNCTION(privrisk_pinned_policy_recv) {
    return pin_recv(reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0)), kPinnedPolicy);
}

// release_policy_is(policy, digest) -> true, or an error: run on the
// coordinator once per scan of a release view over shards (STABLE, so
// postgres_fdw keeps it here), it checks that this server's policy is still
// the one the view pinned: dropped, or changed since create_release_view, the
// view refuses to run, as a release view of local tables does.
PRIVRISK_FUNCTION(privrisk_release_policy_is) {
    std::string name(text_arg_view(fcinfo, 0, "policy"));
    std::string pinned(text_arg_view(fcinfo, 1, "digest"));
    // Called by a view over shards, the planner marked the call with that view (view_grants.hpp).
    const Oid view = PG_NARGS() > 2 && !PG_ARGISNULL(2) ? PG_GETARG_OID(2) : InvalidOid;
    const Policy policy = load_readable_policy(name, view);
    const std::string digest = policy_digest(policy);
    // The digest now only for a role that may read the policy: a reader of the
    // view could test guessed rules against it offline.
    if (digest != pinned)
        fail(ErrorKind::InvalidParameter,
             "policy " + quote_value(name) + " is not the one its release view pinned (digest " +
                 (reads_source(policy.source) ? digest + " now, " : std::string()) + pinned +
                 " pinned): it changed since create_release_view; make the same "
                 "change on every shard, drop the view and its foreign tables (<view>_1, "
                 "…) and create the release view again");
    PG_RETURN_BOOL(true);
}
