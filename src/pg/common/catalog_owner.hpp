// Catalog SQL runs as the catalog's owner (privrisk's tables are not writable by
// the roles that call privrisk): every wing that reads or writes a catalog table
// on the caller's behalf switches here, after its own permission check.
#pragma once

#include "common/postgres.hpp"

namespace privrisk::pg {

// Runs catalog SQL as the catalog's owner: restores the caller on scope exit.
class AsCatalogOwner {
public:
    AsCatalogOwner();
    ~AsCatalogOwner();
    AsCatalogOwner(const AsCatalogOwner&) = delete;
    AsCatalogOwner& operator=(const AsCatalogOwner&) = delete;

private:
    Oid saved_user_;
    int saved_context_;
};

}  // namespace privrisk::pg
