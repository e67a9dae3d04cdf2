// Errors raised by the core library. The PostgreSQL adapter maps each kind
// to a SQLSTATE and reports the message after the C++ frames have unwound.
#pragma once

#include <stdexcept>
#include <string>

namespace privrisk {

enum class ErrorKind {
    InvalidParameter,            // an argument out of its domain (22023)
    BadFormat,                   // malformed input text such as a hierarchy CSV (22P04)
    UndefinedObject,             // a named object that does not exist (42704)
    DuplicateObject,             // a named object that already exists (42710)
    ProgramLimit,                // a documented size limit exceeded (54000)
    PermissionDenied,            // the caller lacks a privilege (42501)
    DependentObjectsStillExist,  // other objects depend on the one to drop (2BP01)
    Internal                     // a broken invariant (XX000)
};

class Error : public std::runtime_error {
public:
    Error(ErrorKind kind, const std::string& message, std::string hint = {})
        : std::runtime_error(message), kind_(kind), hint_(std::move(hint)) {}
    ErrorKind kind() const noexcept { return kind_; }
    const std::string& hint() const noexcept { return hint_; }  // the ERROR's HINT; empty: none

private:
    ErrorKind kind_;
    std::string hint_;
};

[[noreturn]] inline void fail(ErrorKind kind, const std::string& message) { throw Error(kind, message); }
[[noreturn]] inline void fail(ErrorKind kind, const std::string& message, const std::string& hint) {
    throw Error(kind, message, hint);
}

// Quotes a user-supplied string for an error message, cut to a readable length,
// so a hostile or huge value cannot flood the log.
std::string quote_value(const std::string_view& s);

// Shortest decimal text that reads back as the same double ("20", "2.5", "nan").
std::string number_text(double v);

}  // namespace privrisk
