#include "common/guard.hpp"

#include <cstring>
#include <new>

#include "common/error.hpp"

namespace privrisk::pg {

ErrorData* run_catching(void (*fn)(void*), void* arg) {
    MemoryContext caller = CurrentMemoryContext;
    ErrorData* volatile caught = nullptr;
    PG_TRY();
    { fn(arg); }
    PG_CATCH();
    {
        MemoryContextSwitchTo(caller);
        caught = CopyErrorData();
        FlushErrorState();
    }
    PG_END_TRY();
    return caught;
}

ErrorData* copy_error(const ErrorData* from, MemoryContext into) {
    return pg_call([&] {
        MemoryContext old = MemoryContextSwitchTo(into);
        auto* e = static_cast<ErrorData*>(palloc(sizeof(ErrorData)));
        *e = *from;
        for (char** s : {&e->message, &e->detail, &e->detail_log, &e->hint, &e->context, &e->backtrace, &e->schema_name,
                         &e->table_name, &e->column_name, &e->datatype_name, &e->constraint_name, &e->internalquery})
            if (*s) *s = pstrdup(*s);
        e->assoc_context = into;
        MemoryContextSwitchTo(old);
        return e;
    });
}

namespace {

// What an exception leaves behind once its C++ frames are gone: plain bytes only.
struct Report {
    int sqlstate;
    ErrorData* pg;  // set when the error came from PostgreSQL itself
    char message[2048];
    char hint[1024];
};

int sqlstate_of(ErrorKind kind) {
    switch (kind) {
        case ErrorKind::InvalidParameter:
            return ERRCODE_INVALID_PARAMETER_VALUE;
        case ErrorKind::BadFormat:
            return ERRCODE_BAD_COPY_FILE_FORMAT;
        case ErrorKind::UndefinedObject:
            return ERRCODE_UNDEFINED_OBJECT;
        case ErrorKind::DuplicateObject:
            return ERRCODE_DUPLICATE_OBJECT;
        case ErrorKind::ProgramLimit:
            return ERRCODE_PROGRAM_LIMIT_EXCEEDED;
        case ErrorKind::PermissionDenied:
            return ERRCODE_INSUFFICIENT_PRIVILEGE;
        case ErrorKind::DependentObjectsStillExist:
            return ERRCODE_DEPENDENT_OBJECTS_STILL_EXIST;
        case ErrorKind::Internal:
            break;
    }
    return ERRCODE_INTERNAL_ERROR;
}

template <std::size_t N>
void copy_text(char (&to)[N], const char* text) {
    std::size_t n = std::strlen(text);
    if (n >= N) {
        n = N - 1;
        while (n > 0 && (static_cast<unsigned char>(text[n]) & 0xC0) == 0x80) --n;  // keep UTF-8 whole
    }
    std::memcpy(to, text, n);
    to[n] = '\0';
}

void copy_message(Report& r, const char* text) { copy_text(r.message, text); }

// Returns true when body(arg) returned, or false with *report filled. Kept out
// of line so its frames, and every object in the body, are gone when it returns.
__attribute__((noinline)) bool run_body(void (*body)(void*), void* arg, Report* report) noexcept {
    try {
        body(arg);
        return true;
    } catch (const PgError& e) {
        report->pg = e.data();
    } catch (const Error& e) {
        report->sqlstate = sqlstate_of(e.kind());
        copy_message(*report, e.what());
        copy_text(report->hint, e.hint().c_str());
    } catch (const std::bad_alloc&) {
        report->sqlstate = ERRCODE_OUT_OF_MEMORY;
        copy_message(*report, "out of memory in privrisk");
    } catch (const std::exception& e) {
        report->sqlstate = ERRCODE_INTERNAL_ERROR;
        copy_message(*report, e.what());
    } catch (...) {
        report->sqlstate = ERRCODE_INTERNAL_ERROR;
        copy_message(*report, "unknown C++ exception in privrisk");
    }
    return false;
}

}  // namespace

void guarded_run(void (*body)(void*), void* arg) {
    Report report;
    report.sqlstate = 0;
    report.pg = nullptr;
    report.message[0] = '\0';
    report.hint[0] = '\0';
    if (run_body(body, arg, &report)) return;
    if (report.pg) ThrowErrorData(report.pg);
    if (report.hint[0])
        ereport(ERROR, (errcode(report.sqlstate), errmsg("%s", report.message), errhint("%s", report.hint)));
    ereport(ERROR, (errcode(report.sqlstate), errmsg("%s", report.message)));
}

namespace {
struct Call {
    Datum (*body)(FunctionCallInfo);
    FunctionCallInfo fcinfo;
    Datum result;
};
}  // namespace

Datum guarded_call(Datum (*body)(FunctionCallInfo), FunctionCallInfo fcinfo) {
    Call call{body, fcinfo, 0};
    guarded_run(
        [](void* p) {
            auto* c = static_cast<Call*>(p);
            c->result = c->body(c->fcinfo);
        },
        &call);
    return call.result;
}

}  // namespace privrisk::pg
