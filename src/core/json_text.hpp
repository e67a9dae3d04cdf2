// Writing JSON strings: the text form of privrisk.hist and the jsonb reports
// name sensitive values, which may hold any byte a user stored.
#pragma once

#include <string>
#include <string_view>

namespace privrisk {

// Appends `s` to `out` as a JSON string literal (quotes, backslashes and
// control characters escaped; other bytes as they are).
void append_json_string(std::string& out, std::string_view s);

}  // namespace privrisk
