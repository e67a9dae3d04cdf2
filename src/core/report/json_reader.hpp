// A JSON reader for the report's page model (privrisk.report_page): jsonb's
// text, read into a tree whose strings are plain text, so that the page writer
// decides alone how each of them is escaped.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace privrisk {

struct JsonValue {
    enum class Kind { Null, Bool, Number, String, Array, Object };
    Kind kind = Kind::Null;
    bool boolean = false;
    std::string text;  // a string's content (unescaped), a number's digits
    std::vector<JsonValue> items;
    std::vector<std::pair<std::string, JsonValue>> members;

    // The member `key` of an object, or nullptr.
    const JsonValue* find(std::string_view key) const;
};

// Parses one JSON document; BadFormat on malformed text, ProgramLimit past
// `max_depth` nested arrays and objects (the reader recurses).
JsonValue parse_json(std::string_view text, int max_depth = 64);

}  // namespace privrisk
