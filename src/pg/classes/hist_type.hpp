// The SQL type privrisk.hist: a varlena whose payload is the encoded class
// histogram of src/core/class_histogram.hpp.
#pragma once

#include <string>
#include <string_view>

#include "common/guard.hpp"

namespace privrisk::pg {

// The encoded bytes of a hist datum (detoasted; valid for the call).
std::string_view hist_bytes(Datum d);
// A new hist datum in the current memory context.
Datum hist_datum(std::string_view encoded);

}  // namespace privrisk::pg
