// The two guards between C++ and PostgreSQL errors (docs/architecture.md). One idiom per
// direction, so no function writes the setjmp/try dance by hand:
//
//  * PRIVRISK_FUNCTION(name) defines an SQL-callable entry point whose body
//    may throw. Any exception is caught, its message copied into a fixed
//    buffer, and the PostgreSQL ERROR raised only after every C++ frame of
//    the body has unwound (so every destructor has run).
//  * pg_call(f) runs PostgreSQL code from C++. A PostgreSQL ERROR inside it
//    is caught with sigsetjmp, copied, flushed, and rethrown as PgError; the
//    entry point re-raises it with its original SQLSTATE and fields.
//
// Rules for bodies: a PostgreSQL function that can raise an ERROR is called
// through pg_call whenever a C++ object with a destructor is alive; the
// lambda given to pg_call holds no such object itself. A PgError is never
// swallowed: the transaction must abort to clean up what the error left.
#pragma once

#include <exception>
#include <type_traits>
#include <utility>

#include "common/postgres.hpp"

namespace privrisk::pg {

class PgError : public std::exception {
public:
    explicit PgError(ErrorData* data) : data_(data) {}
    ErrorData* data() const noexcept { return data_; }
    const char* what() const noexcept override { return data_->message ? data_->message : "PostgreSQL error"; }

private:
    ErrorData* data_;  // palloc'd in the context current at the call (or where copy_error put it)
};

// Runs fn(arg) under PG_TRY; returns the copied error, or nullptr.
ErrorData* run_catching(void (*fn)(void*), void* arg);

template <typename F>
decltype(auto) pg_call(F&& f) {
    using R = decltype(f());
    if constexpr (std::is_void_v<R>) {
        auto thunk = [](void* p) { (*static_cast<std::remove_reference_t<F>*>(p))(); };
        if (ErrorData* e = run_catching(thunk, &f)) throw PgError(e);
    } else {
        static_assert(std::is_trivially_destructible_v<R>, "pg_call returns plain PostgreSQL values only");
        struct Slot {
            std::remove_reference_t<F>* f;
            R result;
        } slot{&f, R{}};
        auto thunk = [](void* p) {
            auto* s = static_cast<Slot*>(p);
            s->result = (*s->f)();
        };
        if (ErrorData* e = run_catching(thunk, &slot)) throw PgError(e);
        return slot.result;
    }
}

// A deep copy of an error in `into` (CopyErrorData copies only the error being
// handled): for a PgError caught where its data's context goes away before it is rethrown.
ErrorData* copy_error(const ErrorData* from, MemoryContext into);

// Runs body(fcinfo) and converts any exception into a PostgreSQL ERROR after unwinding.
Datum guarded_call(Datum (*body)(FunctionCallInfo), FunctionCallInfo fcinfo);

// The same for callbacks that are not fmgr entry points (planner hooks, custom
// scan methods): body(arg) may throw; the ERROR is raised after it unwound.
void guarded_run(void (*body)(void*), void* arg);

template <typename F>
void guarded(F&& f) {
    guarded_run([](void* p) { (*static_cast<std::remove_reference_t<F>*>(p))(); }, &f);
}

}  // namespace privrisk::pg

#define PRIVRISK_FUNCTION(name)                                                              \
    static Datum name##_body([[maybe_unused]] FunctionCallInfo fcinfo);                      \
    extern "C" {                                                                             \
    PG_FUNCTION_INFO_V1(name);                                                               \
    Datum name(PG_FUNCTION_ARGS) { return privrisk::pg::guarded_call(name##_body, fcinfo); } \
    }                                                                                        \
    static Datum name##_body([[maybe_unused]] FunctionCallInfo fcinfo)
