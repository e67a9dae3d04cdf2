#include "report/json_reader.hpp"

#include "common/error.hpp"
#include "common/json_text.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

const JsonValue* JsonValue::find(std::string_view key) const {
    for (const auto& [name, value] : members)
        if (name == key) return &value;
    return nullptr;
}

namespace {

class Reader {
public:
    Reader(std::string_view text, int max_depth) : s_(text), max_depth_(max_depth) {}

    JsonValue document() {
        JsonValue v = value(0);
        space();
        if (i_ != s_.size()) bad("text after the JSON value");
        return v;
    }

private:
    [[noreturn]] void bad(const char* what) {
        fail(ErrorKind::BadFormat, std::string("malformed JSON at byte ") + std::to_string(i_) + ": " + what);
    }
    void space() {
        while (i_ < s_.size() && (s_[i_] == ' ' || s_[i_] == '\t' || s_[i_] == '\n' || s_[i_] == '\r')) ++i_;
    }
    bool eat(char c) {
        space();
        if (i_ < s_.size() && s_[i_] == c) return ++i_, true;
        return false;
    }
    bool word(std::string_view w) {
        if (s_.substr(i_, w.size()) != w) return false;
        i_ += w.size();
        return true;
    }

    JsonValue value(int depth) {
        space();
        if (i_ >= s_.size()) bad("a value is missing");
        JsonValue v;
        char c = s_[i_];
        if (c == '{' || c == '[') {
            if (depth >= max_depth_)
                fail(ErrorKind::ProgramLimit, "JSON nests deeper than " + std::to_string(max_depth_) + " levels");
            ++i_;
            bool object = c == '{';
            v.kind = object ? JsonValue::Kind::Object : JsonValue::Kind::Array;
            if (eat(object ? '}' : ']')) return v;
            do {
                if (object) {
                    space();
                    std::string key = string();
                    if (!eat(':')) bad("':' expected");
                    v.members.emplace_back(std::move(key), value(depth + 1));
                } else {
                    v.items.push_back(value(depth + 1));
                }
            } while (eat(','));
            if (!eat(object ? '}' : ']')) bad(object ? "'}' expected" : "']' expected");
        } else if (c == '"') {
            v.kind = JsonValue::Kind::String;
            v.text = string();
        } else if (word("true") || word("false")) {
            v.kind = JsonValue::Kind::Bool;
            v.boolean = s_[i_ - 1] == 'e' && s_[i_ - 4] == 't';  // "true", not "false"
        } else if (word("null")) {
            v.kind = JsonValue::Kind::Null;
        } else {
            std::size_t start = i_;
            while (i_ < s_.size() && std::string_view("+-0123456789.eE").find(s_[i_]) != std::string_view::npos) ++i_;
            if (i_ == start) bad("unexpected character");
            v.kind = JsonValue::Kind::Number;
            v.text = std::string(s_.substr(start, i_ - start));
        }
        return v;
    }

    unsigned hex4() {
        if (i_ + 4 > s_.size()) bad("short \\u escape");
        unsigned u = 0;
        for (int k = 0; k < 4; ++k) {
            char h = s_[i_++];
            u <<= 4;
            if (h >= '0' && h <= '9') u |= unsigned(h - '0');
            else if (h >= 'a' && h <= 'f') u |= unsigned(h - 'a' + 10);
            else if (h >= 'A' && h <= 'F') u |= unsigned(h - 'A' + 10);
            else bad("bad \\u escape");
        }
        return u;
    }

    static void utf8(std::string& out, unsigned cp) {
        if (cp < 0x80) {
            out += char(cp);
        } else if (cp < 0x800) {
            out += char(0xC0 | (cp >> 6));
            out += char(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            out += char(0xE0 | (cp >> 12));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        } else {
            out += char(0xF0 | (cp >> 18));
            out += char(0x80 | ((cp >> 12) & 0x3F));
            out += char(0x80 | ((cp >> 6) & 0x3F));
            out += char(0x80 | (cp & 0x3F));
        }
    }

    std::string string() {
        if (i_ >= s_.size() || s_[i_] != '"') bad("a string expected");
        ++i_;
        std::string out;
        while (true) {
            if (i_ >= s_.size()) bad("unterminated string");
            char c = s_[i_++];
            if (c == '"') return out;
            if (static_cast<unsigned char>(c) < 0x20) bad("control character in a string");
            if (c != '\\') {
                out += c;
                continue;
            }
            if (i_ >= s_.size()) bad("unterminated escape");
            char letter = s_[i_++];
            if (letter != 'u') {
                char plain = json_unescape(letter);
                if (!plain) bad("unknown escape");
                out += plain;
                continue;
            }
            unsigned cp = hex4();
            if (cp >= 0xD800 && cp < 0xDC00) {  // a surrogate pair
                if (!word("\\u")) bad("lone surrogate");
                unsigned low = hex4();
                if (low < 0xDC00 || low > 0xDFFF) bad("lone surrogate");
                cp = 0x10000 + ((cp - 0xD800) << 10) + (low - 0xDC00);
            } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
                bad("lone surrogate");
            } else if (cp == 0) {
                bad("\\u0000 in a string");
            }
            utf8(out, cp);
        }
    }

    std::string_view s_;
    std::size_t i_ = 0;
    int max_depth_;
};

}  // namespace

JsonValue parse_json(std::string_view text, int max_depth) { return Reader(text, max_depth).document(); }

}  // namespace privrisk
