// Input/output of privrisk.hist: JSON text and the binary send/receive form,
// both validated so a malformed or hostile value is an error, never a crash.
#include "classes/hist_type.hpp"

#include <cstring>

#include "common/args.hpp"
#include "classes/class_histogram.hpp"
#include "common/error.hpp"

extern "C" {
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace {
bool database_is_utf8() { return GetDatabaseEncoding() == PG_UTF8; }
}  // namespace

namespace privrisk::pg {

std::string_view hist_bytes(Datum d) { return text_view(d); }

Datum hist_datum(std::string_view encoded) { return text_datum(encoded); }

}  // namespace privrisk::pg

PRIVRISK_FUNCTION(privrisk_hist_in) {
    const char* text = PG_GETARG_CSTRING(0);
    return hist_datum(histogram_from_text(text, database_is_utf8()));
}

PRIVRISK_FUNCTION(privrisk_hist_out) {
    std::string text = histogram_to_text(hist_bytes(PG_GETARG_DATUM(0)));
    return CStringGetDatum(pg_call([&] { return pstrdup(text.c_str()); }));
}

PRIVRISK_FUNCTION(privrisk_hist_send) {
    std::string_view bytes = hist_bytes(PG_GETARG_DATUM(0));
    bytea* out = static_cast<bytea*>(pg_call([&] { return palloc(VARHDRSZ + bytes.size()); }));
    SET_VARSIZE(out, VARHDRSZ + bytes.size());
    std::memcpy(VARDATA(out), bytes.data(), bytes.size());
    PG_RETURN_BYTEA_P(out);
}

PRIVRISK_FUNCTION(privrisk_hist_recv) {
    StringInfo buf = reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0));
    std::string_view bytes(buf->data + buf->cursor, buf->len - buf->cursor);
    validate_histogram(bytes, database_is_utf8());
    Datum d = hist_datum(bytes);
    buf->cursor = buf->len;
    return d;
}

// Small accessors, so a class's size and distinct count are one call away.
PRIVRISK_FUNCTION(privrisk_hist_size) { PG_RETURN_INT64(HistogramView(hist_bytes(PG_GETARG_DATUM(0))).size()); }

PRIVRISK_FUNCTION(privrisk_hist_distinct) {
    HistogramView h(hist_bytes(PG_GETARG_DATUM(0)));
    PG_RETURN_INT32(static_cast<int32>(h.distinct() + (h.bottom() > 0 ? 1 : 0)));
}
