// A value as the text a hierarchy holds: text as is, char(n) without its pad
// blanks, dates in ISO form whatever DateStyle says, anything else through its
// output function. Shared by gen(), the release scan, the class reader, hist() and
// canonical_text(): every reader of a value as text, so that they all agree.
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
    bool infinite_dates;  // 'infinity' and '-infinity' as such; else an ERROR (gen: no generalization)
    FmgrInfo output;
    char date[24];  // holds the last date's text (at most 13 characters: 5874897-12-31, 4714-11-24 BC)
};

// `infinite_dates`: a sensitive value is counted by its text whatever it is; a value
// to generalize (gen, the release scan) refuses an infinite date.
void init_value_text(ValueText* method, Oid type, MemoryContext context, bool infinite_dates = false);
// How a value of `type` becomes its text (Output: through its output function).
ValueText::Kind value_text_kind(Oid type);

// For C++ callers (both throw where PostgreSQL raises an ERROR):
// - the method for argument `arg` of a function of any type (hist(), class_tally,
//   canonical_text()), made once per call site in *slot (flinfo's memory), with
//   infinite dates as text;
// - the text of a non-NULL value, with no PostgreSQL call for an inline text.
ValueText* argument_value_text(FunctionCallInfo fcinfo, int arg, void** slot);
std::string_view value_text_of(ValueText* method, Datum value);

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

// Whether the installed SQL has privrisk.canonical_text() (0.15 on): a database whose
// SQL is older until ALTER EXTENSION privrisk UPDATE has only ::text.
bool canonical_text_installed();

}  // namespace privrisk::pg
