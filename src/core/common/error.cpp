#include "common/error.hpp"

#include <charconv>
#include "common/no_postgres.hpp"

namespace privrisk {

std::string quote_value(const std::string_view& s) {
    constexpr std::size_t kShown = 60;
    std::size_t cut = s.size() < kShown ? s.size() : kShown;
    // Never cut inside a UTF-8 sequence.
    while (cut > 0 && cut < s.size() && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) --cut;
    std::string out = "\"";
    for (std::size_t i = 0; i < cut; ++i) {
        unsigned char u = static_cast<unsigned char>(s[i]);
        if (u < 0x20 || u == 0x7f) {
            static const char* hex = "0123456789abcdef";
            out += "\\x";
            out += hex[u >> 4];
            out += hex[u & 15];
        } else {
            out += s[i];
        }
    }
    out += cut < s.size() ? "...\"" : "\"";
    if (cut < s.size()) out += " (" + std::to_string(s.size()) + " bytes)";
    return out;
}

std::string number_text(double v) {
    if (v == 0) v = 0;  // no "-0"
    char buf[64];
    auto res = std::to_chars(buf, buf + sizeof buf, v);
    return std::string(buf, res.ptr);
}

}  // namespace privrisk
