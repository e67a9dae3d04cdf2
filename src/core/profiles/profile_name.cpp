#include "profiles/profile_name.hpp"

#include "common/no_postgres.hpp"

namespace privrisk {

namespace {

// Unicode 15: General_Category Cf, Default_Ignorable_Code_Point and White_Space, as ranges.
constexpr char32_t kInvisible[][2] = {
    {0x0009, 0x000D},   {0x0020, 0x0020},   {0x0085, 0x0085},   {0x00A0, 0x00A0},   {0x00AD, 0x00AD},
    {0x034F, 0x034F},   {0x0600, 0x0605},   {0x061C, 0x061C},   {0x06DD, 0x06DD},   {0x070F, 0x070F},
    {0x0890, 0x0891},   {0x08E2, 0x08E2},   {0x115F, 0x1160},   {0x1680, 0x1680},   {0x17B4, 0x17B5},
    {0x180B, 0x180F},   {0x2000, 0x200F},   {0x2028, 0x202F},   {0x205F, 0x206F},   {0x3000, 0x3000},
    {0x3164, 0x3164},   {0xFE00, 0xFE0F},   {0xFEFF, 0xFEFF},   {0xFFA0, 0xFFA0},   {0xFFF0, 0xFFFB},
    {0x110BD, 0x110BD}, {0x110CD, 0x110CD}, {0x13430, 0x1343F}, {0x1BCA0, 0x1BCA3}, {0x1D173, 0x1D17A},
    {0xE0000, 0xE0FFF},
};

// The code point starting at s[i] and its length in bytes; length 0 when s[i] starts no valid sequence.
std::pair<char32_t, std::size_t> decode(std::string_view s, std::size_t i) {
    unsigned char b = static_cast<unsigned char>(s[i]);
    std::size_t n = b < 0x80 ? 1 : (b >> 5) == 0x6 ? 2 : (b >> 4) == 0xE ? 3 : (b >> 3) == 0x1E ? 4 : 0;
    if (n == 0 || i + n > s.size()) return {0, 0};
    char32_t cp = n == 1 ? b : n == 2 ? (b & 0x1F) : n == 3 ? (b & 0x0F) : (b & 0x07);
    for (std::size_t k = 1; k < n; ++k) {
        unsigned char c = static_cast<unsigned char>(s[i + k]);
        if ((c >> 6) != 0x2) return {0, 0};
        cp = (cp << 6) | (c & 0x3F);
    }
    static constexpr char32_t kLeast[] = {0, 0, 0x80, 0x800, 0x10000};
    if (cp < kLeast[n] || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return {0, 0};  // overlong, surrogate
    return {cp, n};
}

}  // namespace

bool invisible_code_point(char32_t cp) {
    for (const auto& r : kInvisible)
        if (cp >= r[0] && cp <= r[1]) return true;
    return false;
}

std::string profile_name_key(std::string_view name) {
    std::string key;
    for (std::size_t i = 0; i < name.size();) {
        auto [cp, n] = decode(name, i);
        if (n == 0) {  // not UTF-8: the byte as it is
            key += name[i++];
            continue;
        }
        if (!invisible_code_point(cp)) {
            if (n == 1 && cp >= 'A' && cp <= 'Z') key += static_cast<char>(cp - 'A' + 'a');
            else key.append(name.substr(i, n));
        }
        i += n;
    }
    return key;
}

}  // namespace privrisk
