#include "common/json_text.hpp"

#include <charconv>
#include <cmath>

#include "common/no_postgres.hpp"

namespace privrisk {

void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    for (char c : s) {
        unsigned char u = static_cast<unsigned char>(c);
        switch (c) {
            case '"': out += "\\\""; break;
            case '\\': out += "\\\\"; break;
            case '\n': out += "\\n"; break;
            case '\r': out += "\\r"; break;
            case '\t': out += "\\t"; break;
            case '\b': out += "\\b"; break;
            case '\f': out += "\\f"; break;
            default:
                if (u < 0x20) {
                    static const char* hex = "0123456789abcdef";
                    out += "\\u00";
                    out += hex[u >> 4];
                    out += hex[u & 15];
                } else {
                    out += c;
                }
        }
    }
    out += '"';
}

std::string json_string(std::string_view s) {
    std::string out;
    append_json_string(out, s);
    return out;
}

std::string json_number(std::optional<double> v) {
    if (!v) return "null";
    if (std::isinf(*v)) return *v > 0 ? "\"Infinity\"" : "\"-Infinity\"";
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, *v);
    return std::string(buf, res.ptr);
}

std::string json_integer(std::optional<int64_t> v) { return v ? std::to_string(*v) : "null"; }

}  // namespace privrisk
