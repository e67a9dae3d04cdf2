#include "classes/class_query.hpp"

#include "common/args.hpp"
#include "common/error.hpp"
#include "common/sql_text.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "hierarchy/pinned_hierarchy_type.hpp"

extern "C" {
#include "catalog/pg_inherits.h"
#include "foreign/foreign.h"
#include "utils/rls.h"
}

namespace privrisk::pg {

std::vector<ClassColumn> class_columns(const SourceRelation& source, const std::vector<std::optional<std::string>>& qi,
                                       const std::vector<std::optional<std::string>>& hierarchies,
                                       const std::vector<long>& levels) {
    if (qi.empty()) fail(ErrorKind::InvalidParameter, "quasi_identifiers must name at least one column");
    if (!hierarchies.empty() && hierarchies.size() != qi.size())
        fail(ErrorKind::InvalidParameter, "hierarchies must have one entry per quasi-identifier (" +
                                              std::to_string(qi.size()) + "), got " +
                                              std::to_string(hierarchies.size()));
    if (!levels.empty() && levels.size() != qi.size())
        fail(ErrorKind::InvalidParameter, "levels must have one entry per quasi-identifier (" +
                                              std::to_string(qi.size()) + "), got " + std::to_string(levels.size()));
    std::vector<ClassColumn> columns;
    for (std::size_t i = 0; i < qi.size(); ++i) {
        for (std::size_t j = 0; j < i; ++j)
            if (*qi[j] == *qi[i])
                fail(ErrorKind::InvalidParameter, "quasi-identifier " + quote_value(*qi[i]) + " is listed twice");
        ClassColumn c{source_column(source, *qi[i], "quasi-identifier"), std::nullopt, 0};
        long level = levels.empty() ? 0 : levels[i];
        if (!hierarchies.empty() && hierarchies[i]) c.hierarchy = *hierarchies[i];
        if (level != 0 && !c.hierarchy)
            fail(ErrorKind::InvalidParameter, "quasi-identifier " + quote_value(*qi[i]) + " has level " +
                                                  std::to_string(level) + " but no hierarchy");
        if (c.hierarchy) {  // checked here, before the scan, naming the column
            int height = cached_hierarchy(*c.hierarchy).height();
            if (level < 0 || level > height)
                fail(ErrorKind::InvalidParameter, "level " + std::to_string(level) + " of quasi-identifier " +
                                                      quote_value(*qi[i]) + " is outside 0.." + std::to_string(height) +
                                                      " (hierarchy " + quote_value(*c.hierarchy) + ")");
        }
        c.level = static_cast<int>(level);
        columns.push_back(std::move(c));
    }
    return columns;
}

std::vector<Shard> leaf_shards(Oid relid, List* leaves) {
    bool partitioned = pg_call([&] {
        return get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE &&
               check_enable_rls(relid, InvalidOid, true) != RLS_ENABLED;
    });
    if (!partitioned) return {};
    std::vector<Shard> shards;
    bool foreign = false;
    for (int i = 0; i < list_length(leaves); ++i) {
        Oid leaf = list_nth_oid(leaves, i);
        char kind = pg_call([&] { return get_rel_relkind(leaf); });
        if (kind == RELKIND_PARTITIONED_TABLE) continue;
        // Named by schema: the caller needs USAGE on it too, which reading through the parent does not.
        bool readable = pg_call([&] {
            return pg_class_aclcheck(leaf, GetUserId(), ACL_SELECT) == ACLCHECK_OK &&
                   pg_namespace_aclcheck(get_rel_namespace(leaf), GetUserId(), ACL_USAGE) == ACLCHECK_OK &&
                   check_enable_rls(leaf, InvalidOid, true) != RLS_ENABLED;
        });
        if (!readable) return {};
        Shard s{pg_call([&] {
                    return quote_qualified_identifier(get_namespace_name(get_rel_namespace(leaf)), get_rel_name(leaf));
                }),
                ""};
        if (kind == RELKIND_FOREIGN_TABLE) {
            foreign = true;
            s.server = pg_call([&] { return GetForeignServer(GetForeignTable(leaf)->serverid)->servername; });
        }
        shards.push_back(std::move(s));
    }
    if (!foreign) shards.clear();
    return shards;
}

std::vector<Shard> source_shards(Oid relid) {
    bool partitioned = pg_call([&] { return get_rel_relkind(relid) == RELKIND_PARTITIONED_TABLE; });
    if (!partitioned) return {};
    return leaf_shards(relid, pg_call([&] { return find_all_inheritors(relid, AccessShareLock, nullptr); }));
}

bool canonical_text_ships(Oid type) {
    switch (type) {
        case TEXTOID:
        case VARCHAROID:
        case INT2OID:
        case INT4OID:
        case INT8OID:
        case BOOLOID:
            return true;
        default:
            return false;
    }
}

std::string canonical_text_sql(const SourceColumn& column) {
    if (!canonical_text_ships(column.type)) return "";
    switch (column.type) {
        case TEXTOID:
            return column.quoted;
        case BOOLOID:  // its output function's t and f, where ::text says true and false
            return "pg_catalog.left((" + column.quoted + ")::pg_catalog.text, 1)";
        default:
            return "(" + column.quoted + ")::pg_catalog.text";
    }
}

bool groups_on_shards(Oid relid, AttrNumber attnum, Oid type) {
    // The types whose SQL equality is their canonical text's, which a shard can then
    // write: a shard's GROUP BY merges no values the coordinator would tell apart.
    if (!canonical_text_ships(type)) return false;
    return pg_call([&] {
        Oid t, collation;
        int32 typmod;
        get_atttypetypmodcoll(relid, attnum, &t, &typmod, &collation);
        return !OidIsValid(collation) || get_collation_isdeterministic(collation);
    });
}

std::vector<Shard> class_shards(Oid relid, const std::vector<SourceColumn>& columns, List* leaves) {
    for (const SourceColumn& c : columns)
        if (!groups_on_shards(relid, c.attnum, c.type)) return {};
    return leaves ? leaf_shards(relid, leaves) : source_shards(relid);
}

std::vector<std::string> class_key_expressions(const std::vector<ClassColumn>& columns, const std::string& server,
                                               bool pinned) {
    std::vector<std::string> out;
    for (const ClassColumn& c : columns) {
        std::string e = c.column.quoted;
        if (c.hierarchy) {
            std::string h =
                pinned ? sql_literal(pinned_hierarchy_text(*c.hierarchy, server)) + "::privrisk.pinned_hierarchy"
                       : sql_literal(*c.hierarchy) + "::pg_catalog.text";
            e = "privrisk.gen(" + e + ", " + h + ", " + std::to_string(c.level) + ")";
        }
        out.push_back(std::move(e));
    }
    return out;
}

namespace {

// The grouped query over one relation: its class keys and hist().
std::string grouped(const std::string& relation, const std::vector<std::string>& keys,
                    const std::optional<SourceColumn>& sensitive) {
    std::string select = "SELECT ", numbers;
    for (std::size_t i = 0; i < keys.size(); ++i) {
        select += keys[i] + ", ";
        numbers += (i ? ", " : "") + std::to_string(i + 1);
    }
    select += sensitive ? "privrisk.hist(" + sensitive->quoted + ")" : std::string("privrisk.hist(*)");
    return select + " FROM " + relation + " GROUP BY " + numbers;
}

std::vector<std::string> quoted(const std::vector<SourceColumn>& columns) {
    std::vector<std::string> out;
    for (const SourceColumn& c : columns) out.push_back(c.quoted);
    return out;
}

}  // namespace

std::vector<SourceColumn> plain_columns(const std::vector<ClassColumn>& columns) {
    std::vector<SourceColumn> out;
    for (const ClassColumn& c : columns) out.push_back(c.column);
    return out;
}

std::string shard_classes_query(const std::vector<Shard>& shards, const std::vector<SourceColumn>& keys,
                                const std::optional<SourceColumn>& sensitive) {
    std::string parts;
    for (const Shard& s : shards)
        parts += (parts.empty() ? "" : " UNION ALL ") + grouped(s.qualified, quoted(keys), sensitive);
    return parts;
}

std::string class_tally_query(const std::vector<Shard>& parts, const std::vector<SourceColumn>& keys,
                              const std::optional<SourceColumn>& sensitive) {
    const std::string counted = sensitive ? canonical_text_sql(*sensitive) : "NULL::pg_catalog.text";
    std::string sql;
    for (const Shard& part : parts) {
        sql += (sql.empty() ? "SELECT privrisk.class_tally(" : " UNION ALL SELECT privrisk.class_tally(") + counted;
        for (const SourceColumn& k : keys) sql += ", " + k.quoted;
        sql += ") FROM " + part.qualified;
    }
    return sql;
}

std::string class_query(const SourceRelation& source, const std::vector<Shard>& shards,
                        const std::vector<ClassColumn>& columns, const std::optional<SourceColumn>& sensitive) {
    if (shards.empty()) return grouped(source.qualified, class_key_expressions(columns, "", false), sensitive);
    std::string keys, parts;
    for (std::size_t i = 0; i < columns.size(); ++i) keys += (i ? ", k" : "k") + std::to_string(i);
    for (const Shard& s : shards)
        parts += (parts.empty() ? "" : " UNION ALL ") +
                 grouped(s.qualified, class_key_expressions(columns, s.server, true), sensitive);
    return "SELECT " + keys + ", privrisk.hist_merge(h) FROM (" + parts + ") AS c(" + keys + ", h) GROUP BY " + keys;
}

}  // namespace privrisk::pg
