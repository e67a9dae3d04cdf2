// Reading SQL arguments into C++ values, with errors that name the argument.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "guard.hpp"

namespace privrisk::pg {

// The bytes of a text argument (detoasted; valid for the call). NULL is an
// error naming `what`.
std::string_view text_arg_view(FunctionCallInfo fcinfo, int i, const char* what);
int int4_arg_value(FunctionCallInfo fcinfo, int i, const char* what);
std::vector<long> int4_array_arg_values(FunctionCallInfo fcinfo, int i, const char* what);
// A text[] argument; NULL gives an empty vector, a NULL element is an error unless allow_nulls.
std::vector<std::optional<std::string>> text_array_arg_values(FunctionCallInfo fcinfo, int i, const char* what,
                                                              bool allow_nulls);

// A view of a text datum (detoasting it when needed).
std::string_view text_view(Datum d);

// A view of a character(n) datum without its pad blanks: 'ab' stored as char(4)
// is the value 'ab', as PostgreSQL compares it.
std::string_view bpchar_view(Datum d);

// Looks up the output function of `type` into `output`, allocated in `context`.
void output_function(Oid type, FmgrInfo* output, MemoryContext context);

// A new text datum holding `s`.
Datum text_datum(std::string_view s);

// Names of hierarchies and policies are keys users type: bounded and printable.
void check_object_name(const char* kind, std::string_view name);
void check_hierarchy_name(std::string_view name);

}  // namespace privrisk::pg
