#include "common/json_text.hpp"

#include <charconv>
#include <cmath>

#include "common/no_postgres.hpp"

namespace privrisk {

namespace {
// JSON's two-character escapes: the letter after the backslash, and the
// character it stands for. '/' is read but never written escaped.
constexpr char kEscapes[][2] = {{'"', '"'},  {'\\', '\\'}, {'/', '/'},  {'b', '\b'},
                                {'f', '\f'}, {'n', '\n'},  {'r', '\r'}, {'t', '\t'}};
}  // namespace

char json_unescape(char letter) {
    for (const auto& e : kEscapes)
        if (e[0] == letter) return e[1];
    return 0;
}

void append_json_string(std::string& out, std::string_view s) {
    out += '"';
    for (char c : s) {
        unsigned char u = static_cast<unsigned char>(c);
        if (u >= 0x20 && c != '"' && c != '\\') {  // the common case first: a plain byte
            out += c;
            continue;
        }
        char letter = 0;
        for (const auto& e : kEscapes)
            if (e[1] == c) letter = e[0];
        if (letter) {
            out += '\\';
            out += letter;
        } else {
            static const char* hex = "0123456789abcdef";
            out += "\\u00";
            out += hex[u >> 4];
            out += hex[u & 15];
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
