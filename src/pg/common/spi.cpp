#include "common/spi.hpp"

#include "common/error.hpp"

extern "C" {
#include "access/xact.h"
#include "utils/guc.h"
#include "utils/resowner.h"
}

namespace privrisk::pg {

SpiArg text_arg(std::string_view s) {
    const char* p = s.data();
    int n = static_cast<int>(s.size());
    return {TEXTOID, pg_call([&] { return PointerGetDatum(cstring_to_text_with_len(p, n)); }), false};
}
SpiArg int4_arg(int v) { return {INT4OID, Int32GetDatum(v), false}; }
SpiArg oid_arg(Oid type, Oid v) { return {type, ObjectIdGetDatum(v), false}; }

namespace {

SpiArg array_arg(Oid array_type, Oid element_type, Datum* items, bool* nulls, int n) {
    int16 len;
    bool byval;
    char align;
    Datum array = pg_call([&] {
        get_typlenbyvalalign(element_type, &len, &byval, &align);
        int dims[1] = {n};
        int lbs[1] = {1};
        return PointerGetDatum(construct_md_array(items, nulls, 1, dims, lbs, element_type, len, byval, align));
    });
    return {array_type, array, false};
}

template <typename T>
T* pg_array(std::size_t n) {
    return static_cast<T*>(pg_call([&] { return palloc0(sizeof(T) * (n ? n : 1)); }));
}

}  // namespace

SpiArg text_array_arg(const std::vector<std::optional<std::string_view>>& items) {
    Datum* d = pg_array<Datum>(items.size());
    bool* nulls = pg_array<bool>(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (items[i]) d[i] = text_arg(*items[i]).value;
        else nulls[i] = true;
    }
    return array_arg(TEXTARRAYOID, TEXTOID, d, nulls, static_cast<int>(items.size()));
}

SpiArg text_array_arg(const std::vector<std::string>& items) {
    return text_array_arg(std::vector<std::optional<std::string_view>>(items.begin(), items.end()));
}

SpiArg int4_array_arg(const std::vector<int>& items) {
    Datum* d = pg_array<Datum>(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) d[i] = Int32GetDatum(items[i]);
    return array_arg(INT4ARRAYOID, INT4OID, d, nullptr, static_cast<int>(items.size()));
}

SpiArg int8_array_arg(const std::vector<long>& items) {
    Datum* d = pg_array<Datum>(items.size());
    for (std::size_t i = 0; i < items.size(); ++i) d[i] = Int64GetDatum(items[i]);
    return array_arg(INT8ARRAYOID, INT8OID, d, nullptr, static_cast<int>(items.size()));
}

void run_with_pinned_search_path(void (*fn)(void*), void* arg) {
    int level = NewGUCNestLevel();
    PG_TRY();
    {
        set_config_option("search_path", kPinnedSearchPath, PGC_USERSET, PGC_S_SESSION, GUC_ACTION_SAVE, true, 0,
                          false);
        fn(arg);
    }
    PG_CATCH();
    {
        AtEOXact_GUC(false, level);
        PG_RE_THROW();
    }
    PG_END_TRY();
    AtEOXact_GUC(true, level);
}

Spi::Spi() {
    pg_call([] { SPI_connect(); });
    open_ = true;
}

void Spi::finish() {
    if (open_) pg_call([] { SPI_finish(); });
    open_ = false;
}

uint64 Spi::run(const char* sql, const std::vector<SpiArg>& args, bool read_only) {
    int n = static_cast<int>(args.size());
    Oid* types = pg_array<Oid>(args.size());
    Datum* values = pg_array<Datum>(args.size());
    char* nulls = pg_array<char>(args.size());
    for (int i = 0; i < n; ++i) {
        types[i] = args[i].type;
        values[i] = args[i].value;
        nulls[i] = args[i].null ? 'n' : ' ';
    }
    int rc = 0;
    with_pinned_search_path([&] { rc = SPI_execute_with_args(sql, n, types, values, nulls, read_only, 0); });
    if (rc < 0) fail(ErrorKind::Internal, std::string("SPI failed (") + SPI_result_code_string(rc) + ") on: " + sql);
    return SPI_processed;
}

Datum Spi::value(uint64 row, int col) const {
    bool isnull;
    Datum d = pg_call([&] { return SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col, &isnull); });
    if (isnull) fail(ErrorKind::Internal, "unexpected NULL in column " + std::to_string(col) + " of a catalog query");
    return d;
}

bool Spi::null(uint64 row, int col) const {
    bool isnull;
    pg_call([&] { SPI_getbinval(SPI_tuptable->vals[row], SPI_tuptable->tupdesc, col, &isnull); });
    return isnull;
}

std::string Spi::string(uint64 row, int col) const {
    Datum d = value(row, col);
    text* t = pg_call([&] { return DatumGetTextPP(d); });
    return std::string(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
}

long Spi::int8(uint64 row, int col) const { return DatumGetInt64(value(row, col)); }

double Spi::float8(uint64 row, int col) const { return DatumGetFloat8(value(row, col)); }

std::vector<std::string> Spi::strings(uint64 row, int col) const {
    Datum d = value(row, col);
    Datum* items;
    bool* nulls;
    int n;
    pg_call([&] { deconstruct_array(DatumGetArrayTypeP(d), TEXTOID, -1, false, TYPALIGN_INT, &items, &nulls, &n); });
    std::vector<std::string> out;
    out.reserve(n);
    for (int i = 0; i < n; ++i) {
        if (nulls[i]) fail(ErrorKind::Internal, "unexpected NULL element in a catalog array");
        text* t = pg_call([&] { return DatumGetTextPP(items[i]); });
        out.emplace_back(VARDATA_ANY(t), VARSIZE_ANY_EXHDR(t));
    }
    return out;
}

std::vector<long> Spi::int8_array(uint64 row, int col) const {
    Datum d = value(row, col);
    Datum* items;
    bool* nulls;
    int n;
    pg_call([&] {
        deconstruct_array(DatumGetArrayTypeP(d), INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE, &items, &nulls, &n);
    });
    std::vector<long> out;
    for (int i = 0; i < n; ++i) {
        if (nulls[i]) fail(ErrorKind::Internal, "unexpected NULL element in a catalog array");
        out.push_back(DatumGetInt64(items[i]));
    }
    return out;
}

bool in_subtransaction(int sqlstate, const std::function<void()>& fn) {
    return in_subtransaction([sqlstate](int code) { return code == sqlstate; }, fn);
}

bool in_subtransaction(const std::function<bool(int)>& expected, const std::function<void()>& fn, Caught* caught) {
    // No subtransaction may start during a parallel operation (a function called above
    // a Gather): fn runs as it is there, and whatever it raises propagates.
    if (pg_call([] { return IsInParallelMode(); })) {
        fn();
        return true;
    }
    MemoryContext outer = CurrentMemoryContext;
    ResourceOwner owner = CurrentResourceOwner;
    auto back = [&] {
        MemoryContextSwitchTo(outer);
        CurrentResourceOwner = owner;
    };
    pg_call([&] {
        BeginInternalSubTransaction(nullptr);
        MemoryContextSwitchTo(outer);
    });
    // Any failure rolls the subtransaction back before it goes on: an error that
    // left it open would leave the session in an aborted transaction block.
    auto roll_back = [&] {
        pg_call([&] {
            RollbackAndReleaseCurrentSubTransaction();
            back();
        });
    };
    try {
        fn();
    } catch (const PgError& e) {
        // Its data may live in memory the rollback frees (an SPI connection opened inside):
        // a copy in the caller's memory goes on instead.
        ErrorData* copy = copy_error(e.data(), outer);
        roll_back();
        if (!expected(copy->sqlerrcode)) throw PgError(copy);
        if (caught) *caught = Caught{copy->sqlerrcode, copy->message ? copy->message : "PostgreSQL error"};
        return false;
    } catch (...) {
        roll_back();
        throw;
    }
    pg_call([&] {
        ReleaseCurrentSubTransaction();
        back();
    });
    return true;
}

}  // namespace privrisk::pg
