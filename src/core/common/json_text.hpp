// Writing JSON strings: the text form of privrisk.hist and the jsonb reports
// name sensitive values, which may hold any byte a user stored.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace privrisk {

// Appends `s` to `out` as a JSON string literal (quotes, backslashes and
// control characters escaped; other bytes as they are).
void append_json_string(std::string& out, std::string_view s);
std::string json_string(std::string_view s);

// The character a JSON two-character escape `\letter` stands for ("\n" → '\n'),
// or 0 when `letter` is not one (\u is handled by the reader).
char json_unescape(char letter);

// A number for a jsonb report: shortest round-trip text, infinities as the
// strings "Infinity" / "-Infinity", nullopt as null.
std::string json_number(std::optional<double> v);
std::string json_integer(std::optional<int64_t> v);

}  // namespace privrisk
