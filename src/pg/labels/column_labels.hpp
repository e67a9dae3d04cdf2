// Column labels in PostgreSQL: the label provider "privrisk" (SECURITY LABEL
// FOR privrisk ON COLUMN …), and reading a relation's labels (docs/labels.md).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/postgres.hpp"
#include "labels/role_arguments.hpp"

namespace privrisk::pg {

// Registers the provider; called once from _PG_init. An event trigger loads
// the library before any SECURITY LABEL runs (load_label_provider), so the
// provider is there in every session of a database with the extension.
void register_label_provider();

// Every column of `relation` (dropped ones aside, their labels went with them)
// with its label, if it has one, in column order: one scan of pg_seclabel.
// No permission check (labels are catalog data, as column names are).
struct TableColumn {
    std::string name;
    std::optional<ColumnLabel> label;
    AttrNumber attno = InvalidAttrNumber;
};
// Kept per backend by relation until a relcache invalidation of it: ALTER TABLE
// sends one, and so does SECURITY LABEL FOR privrisk (the provider's hook), at
// its commit to every backend and at its command's end to its own.
std::vector<TableColumn> table_columns(Oid relation);

// The labelled columns of `relation`, in column order (dropped ones are gone
// with their labels). The caller must be allowed to read some column of it.
std::vector<LabelledColumn> labelled_columns(Oid relation);

// The same without the permission check (the labels of a release view's
// source, for a reader of the view who may not read the source).
std::vector<LabelledColumn> labels_of(Oid relation);

// resolve_role_arguments over the labels of `source` (checks the caller may
// read a column of it first); a release view without labels of its own takes
// its policy's source's, without their hierarchies.
RoleArguments labelled_role_arguments(Oid source, const OptionalTexts& quasi_identifiers,
                                      const OptionalTexts& hierarchies, const std::optional<std::string>& sensitive,
                                      const std::string& function);

}  // namespace privrisk::pg
