// Each policy's pseudonym key, in privrisk.pseudonym_key (docs/pseudonymization.md):
// made with the policy's first pseudonymize rule, replaced by rotate_pseudonym_key,
// read by the release scan as the catalog's owner. The secret never leaves these
// functions as text: no error, notice or plan names it.
#pragma once

#include <string>

#include "common/postgres.hpp"
#include "release/pseudonym.hpp"

namespace privrisk::pg {

// Whether a column of type `type` may be pseudonymized: its canonical text (the
// pseudonym's input) must not depend on session settings (TimeZone, DateStyle,
// extra_float_digits, …), or one value would get several pseudonyms.
bool pseudonymizable_type(Oid type);

// Makes the policy's key unless it has one (the caller owns the policy).
void ensure_pseudonym_key(const std::string& policy);

// The policy's pseudonymizer (its derived PRF key), allocated in `context` (the scan's), read under
// the query's snapshot; an error naming the policy (never the key) when it has none.
Pseudonymizer* load_pseudonymizer(const std::string& policy, MemoryContext context);

}  // namespace privrisk::pg
