// A value as the text a hierarchy holds: text as is, char(n) without its pad
// blanks, dates in ISO form whatever DateStyle says, anything else through its
// output function. Shared by gen() and the release scan.
//
// value_text is PostgreSQL-style: it may palloc in CurrentMemoryContext and may
// raise an ERROR, and it never throws, so the release scan can call it per row
// from frames that hold no C++ object (docs/architecture.md); C++ callers use pg_call.
#pragma once

#include <string_view>

#include "common/postgres.hpp"

namespace privrisk::pg {

struct ValueText {
    Oid type;
    enum Kind : char { Text, Bpchar, Date, Output } kind;
    FmgrInfo output;
    char date[16];  // holds the last date's text
};

void init_value_text(ValueText* method, Oid type, MemoryContext context);

// The bytes of a text (or varchar, char(n)) datum. Inline values, nearly all,
// need no call; a toasted one is detoasted in CurrentMemoryContext, which may
// raise an ERROR.
inline std::string_view text_bytes(Datum value) {
    auto* t = reinterpret_cast<text*>(DatumGetPointer(value));
    if (VARATT_IS_EXTERNAL(t) || VARATT_IS_COMPRESSED(t)) t = DatumGetTextPP(value);
    return std::string_view(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

// The text of a non-NULL value; valid until the next call or memory reset.
std::string_view value_text_slow(ValueText* method, Datum value);
inline std::string_view value_text(ValueText* method, Datum value) {
    return method->kind == ValueText::Text ? text_bytes(value) : value_text_slow(method, value);
}

}  // namespace privrisk::pg
