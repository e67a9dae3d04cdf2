// Rule conditions of the common shapes, evaluated natively per row: a column
// compared with a constant (integers; text equality under a deterministic
// collation), a boolean column, IS [NOT] NULL, a flat AND or OR of those, and a
// constant.
// Anything else runs through PostgreSQL's expression evaluator. Both give the
// same answer (release.sql checks it on random rows); only TRUE discloses.
#pragma once

#include <cstring>

#include "common/postgres.hpp"
#include "common/value_text.hpp"

namespace privrisk::pg {

struct FastCondition {
    enum class Kind : char { Int2, Int4, Int8, Text, Bool };
    enum class Test : char { Eq, Ne, Lt, Le, Gt, Ge, IsNull, IsNotNull, IsTrue, IsFalse };
    struct Term {
        int column;  // 0-based index into the source row
        Kind kind;
        Test test;
        int64 number;
        const char* bytes;
        int length;
        // A text constant as a short (1-byte header) datum, its first 16 bytes and
        // which of them count: a heap value is compared with two loads, no jump.
        uint64 inline_words[2];
        uint64 inline_mask[2];
        // The test specialized to this term's kind and test (set by compile_fast_condition).
        bool (*holds)(const Term& t, const Datum* values, const bool* isnull);
    };
    bool any;  // OR of the terms; else AND
    int count;
    Term terms[FLEXIBLE_ARRAY_MEMBER];

    static int64 integer_value(Kind kind, Datum d) {
        switch (kind) {
            case Kind::Int2:
                return DatumGetInt16(d);
            case Kind::Int4:
                return DatumGetInt32(d);
            default:
                return DatumGetInt64(d);
        }
    }
};

// The native form of a planned condition over the source's columns (Vars of
// range table entry 1), allocated in the current memory context; NULL when
// its shape is not one of the above.
FastCondition* compile_fast_condition(Expr* condition);

// x (test) c for an integer term; folded to one comparison where the test is a constant.
inline bool integer_test(FastCondition::Test test, int64 x, int64 c) {
    using Test = FastCondition::Test;
    switch (test) {
        case Test::Eq:
            return x == c;
        case Test::Ne:
            return x != c;
        case Test::Lt:
            return x < c;
        case Test::Le:
            return x <= c;
        case Test::Gt:
            return x > c;
        case Test::Ge:
            return x >= c;
        default:
            return false;
    }
}

// Whether a text datum equals a text term's constant, byte for byte: the rare
// values the word test below does not take (4-byte header, toasted, near a page end).
inline bool text_equals_slow(const FastCondition::Term& t, Datum d) {
    std::string_view v = text_bytes(d);  // may raise an ERROR (detoasting)
    return (int)v.size() == t.length && std::memcmp(v.data(), t.bytes, t.length) == 0;
}
__attribute__((always_inline)) inline bool text_equals(const FastCondition::Term& t, Datum d) {
    const char* p = DatumGetPointer(d);
    // A short datum (how a heap tuple keeps text under 127 bytes) is compared as its
    // first 16 bytes, header (so length) included. The datum may be shorter: the
    // bytes read past it are masked off, and reading them cannot fault while they
    // stay on the same 4 kB page (checked; else the byte-wise test).
    if (VARATT_IS_SHORT(p) && (reinterpret_cast<uintptr_t>(p) & 4095) <= 4096 - 16) {
        uint64 w0, w1;
        std::memcpy(&w0, p, 8);
        std::memcpy(&w1, p + 8, 8);
        bool head =
            (((w0 ^ t.inline_words[0]) & t.inline_mask[0]) | ((w1 ^ t.inline_words[1]) & t.inline_mask[1])) == 0;
        return t.length <= 15 ? head : head && std::memcmp(p + 16, t.bytes + 15, t.length - 15) == 0;
    }
    return text_equals_slow(t, d);
}

// The generic test of one term (the specialized ones give the same answers).
inline bool fast_term_holds(const FastCondition::Term& t, const Datum* values, const bool* isnull) {
    using Test = FastCondition::Test;
    bool null = isnull[t.column];
    if (t.test == Test::IsNull) return null;
    if (t.test == Test::IsNotNull) return !null;
    if (null) return false;  // a comparison with NULL is unknown: it protects
    Datum d = values[t.column];
    switch (t.kind) {
        case FastCondition::Kind::Bool:
            return DatumGetBool(d) == (t.test == Test::IsTrue);
        case FastCondition::Kind::Text:
            return text_equals(t, d) == (t.test == Test::Eq);
        default:
            return integer_test(t.test, FastCondition::integer_value(t.kind, d), t.number);
    }
}

// Whether the condition is TRUE on a source row deformed into values/isnull
// (NULL or FALSE protects): AND needs every term TRUE, OR one. PostgreSQL-style:
// may detoast a value in the current memory context, never throws.
inline bool fast_condition_holds(const FastCondition* c, const Datum* values, const bool* isnull) {
    if (c->count == 1) return c->terms[0].holds(c->terms[0], values, isnull);  // AND or OR of one term
    for (int i = 0; i < c->count; ++i)
        if (c->terms[i].holds(c->terms[i], values, isnull) == c->any) return c->any;
    return !c->any;
}

}  // namespace privrisk::pg
