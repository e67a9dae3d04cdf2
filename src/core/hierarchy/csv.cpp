#include "hierarchy/csv.hpp"

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

bool valid_utf8(std::string_view s) {
    std::size_t i = 0, n = s.size();
    while (i < n) {
        unsigned char c = static_cast<unsigned char>(s[i]);
        if (c < 0x80) {
            ++i;
            continue;
        }
        int len;
        unsigned int cp;
        if ((c & 0xE0) == 0xC0) {
            len = 2;
            cp = c & 0x1F;
        } else if ((c & 0xF0) == 0xE0) {
            len = 3;
            cp = c & 0x0F;
        } else if ((c & 0xF8) == 0xF0) {
            len = 4;
            cp = c & 0x07;
        } else return false;
        if (i + len > n) return false;
        for (int k = 1; k < len; ++k) {
            unsigned char d = static_cast<unsigned char>(s[i + k]);
            if ((d & 0xC0) != 0x80) return false;
            cp = (cp << 6) | (d & 0x3F);
        }
        static const unsigned int min_cp[5] = {0, 0, 0x80, 0x800, 0x10000};
        if (cp < min_cp[len] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return false;
        i += len;
    }
    return true;
}

namespace {

[[noreturn]] void bad(long line, const std::string& what) {
    fail(ErrorKind::BadFormat, "line " + std::to_string(line) + ": " + what);
}

void check_field(long line, std::size_t column, const std::string& field) {
    if (field.size() > kMaxFieldBytes)
        bad(line, "field " + std::to_string(column) + " is " + std::to_string(field.size()) +
                      " bytes long; the limit is " + std::to_string(kMaxFieldBytes));
}

}  // namespace

std::vector<CsvRecord> parse_csv(std::string_view text, std::string_view delimiter) {
    if (delimiter.size() != 1 || static_cast<unsigned char>(delimiter[0]) >= 0x80 || delimiter[0] == '"' ||
        delimiter[0] == '\n' || delimiter[0] == '\r')
        fail(ErrorKind::InvalidParameter,
             "delimiter must be one ASCII character other than a quote or a line break, got " + quote_value(delimiter));
    const char delim = delimiter[0];
    std::vector<CsvRecord> records;
    std::size_t i = 0, n = text.size();
    long line = 1;
    while (i < n) {
        // Find the physical end of this record, honouring quotes that may span lines.
        CsvRecord rec{line, {}};
        std::string field;
        bool quoted_fld = false, in_quotes = false, any = false;
        long start_line = line;
        std::size_t record_start = i;
        for (;;) {
            if (i >= n) {
                if (in_quotes) bad(start_line, "a quoted field is not terminated");
                break;
            }
            char c = text[i];
            if (in_quotes) {
                if (c == '"') {
                    if (i + 1 < n && text[i + 1] == '"') {
                        field += '"';
                        i += 2;
                        continue;
                    }
                    in_quotes = false;
                    ++i;
                    continue;
                }
                if (c == '\n') ++line;
                field += c;
                ++i;
                if (field.size() > kMaxFieldBytes) check_field(start_line, rec.fields.size() + 1, field);
                continue;
            }
            if (c == '\n' || (c == '\r' && i + 1 < n && text[i + 1] == '\n')) {
                i += (c == '\r') ? 2 : 1;
                ++line;
                break;
            }
            if (c == delim) {
                check_field(start_line, rec.fields.size() + 1, field);
                rec.fields.push_back(std::move(field));
                field.clear();
                quoted_fld = false;
                any = true;
                ++i;
                continue;
            }
            if (c == '"' && field.empty() && !quoted_fld) {
                in_quotes = quoted_fld = true;
                any = true;
                ++i;
                continue;
            }
            if (c == '"')
                bad(start_line, "a quote inside an unquoted field (quote the whole field and double the quote)");
            field += c;
            any = true;
            ++i;
            if (field.size() > kMaxFieldBytes) check_field(start_line, rec.fields.size() + 1, field);
        }
        std::string_view raw = text.substr(record_start, i - record_start);
        if (!valid_utf8(raw)) bad(start_line, "invalid UTF-8");
        if (!any && field.empty()) continue;  // blank line
        check_field(start_line, rec.fields.size() + 1, field);
        rec.fields.push_back(std::move(field));
        records.push_back(std::move(rec));
    }
    return records;
}

}  // namespace privrisk
