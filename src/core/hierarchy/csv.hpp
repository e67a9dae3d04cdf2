// Delimited text as used by ARX hierarchy files: one record per line,
// fields split by a one-byte delimiter, optional RFC 4180 double quotes.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace privrisk {

struct CsvRecord {
    long line;  // 1-based line number in the input
    std::vector<std::string> fields;
};

// Longest field accepted, in bytes: hierarchy values are labels, not documents.
constexpr std::size_t kMaxFieldBytes = 8192;

// Splits `text` into records. Blank lines are skipped; CRLF is accepted.
// Errors name the line: invalid UTF-8, an unterminated quote, a field over
// kMaxFieldBytes, or a delimiter that is not a single ASCII byte.
std::vector<CsvRecord> parse_csv(std::string_view text, std::string_view delimiter);

// True when `s` is well-formed UTF-8 (no overlongs, no surrogates).
bool valid_utf8(std::string_view s);

}  // namespace privrisk
