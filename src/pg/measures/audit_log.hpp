// privrisk.audit_log's writer (docs/measures.md): rows are written as the log's
// owner, with the current and the session role taken from the session.
#pragma once

#include <optional>
#include <string>

#include "common/postgres.hpp"

namespace privrisk::pg {

class Spi;

// Appends a row: `source` as text, `settings` and `result` as JSON text, and
// `release`, the trace of a release view (release_trace.hpp), or NULL.
void append_audit_log(Spi& spi, const std::string& source, const std::string& settings, const std::string& result,
                      const std::optional<std::string>& release);

}  // namespace privrisk::pg
