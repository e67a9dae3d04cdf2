#include "common/sql_text.hpp"

#include "common/guard.hpp"

namespace privrisk::pg {

std::string sql_identifier(const std::string& name) {
    const char* n = name.c_str();
    return std::string(pg_call([&] { return quote_identifier(n); }));
}

std::string sql_literal(const std::string& text) {
    const char* t = text.c_str();
    return std::string(pg_call([&] { return quote_literal_cstr(t); }));
}

std::string sql_type(Oid type, int32 typmod) {
    return std::string(pg_call(
        [&] { return format_type_extended(type, typmod, FORMAT_TYPE_TYPEMOD_GIVEN | FORMAT_TYPE_FORCE_QUALIFY); }));
}

}  // namespace privrisk::pg
