// The relation and columns an analysis reads (audit, search), resolved with
// errors that name them, and how a column's value becomes the bytes of a class
// key. Names are quoted, never spliced.
#pragma once

#include <array>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "common/guard.hpp"
#include "hierarchy/hierarchy.hpp"  // Value

namespace privrisk::pg {

struct SourceRelation {
    Oid relid;
    std::string name;       // as the user knows it, for messages
    std::string qualified;  // quoted schema.name, for SQL
};

struct SourceColumn {
    std::string name;
    std::string quoted;
    AttrNumber attnum;
    Oid type;
};

SourceRelation source_relation(Oid relid);
// `role` names the column's part in messages ("quasi-identifier", "sensitive").
SourceColumn source_column(const SourceRelation& source, const std::string& column, const char* role);

// Whether the caller may read `relid`'s columns straight from its heap: a table
// or materialized view it may SELECT whole, without row-level security or
// inheritance children (the query reads theirs; the heap holds only its own).
// Asked by choose_read (classes/read_choice.hpp), which decides how every class read reads.
bool readable_from_heap(Oid relid);

// The planner's estimate of `relid`'s rows (pg_class.reltuples; -1: none), for progress reports.
double estimated_rows(Oid relid);

// The one place a query over a user's source is written: SELECT <expressions>
// FROM <source>, the expressions being SQL over quoted names (never user text).
std::string source_select(const SourceRelation& source, const std::vector<std::string>& expressions);

// How the rows of a source are read, decided once per scan (choose_read): straight
// from the heap when the caller may read the table whole (readable_from_heap), else
// through SQL, where privileges, row-level security and inheritance children
// apply.
struct SourceRows {
    bool from_heap;
};

// Calls on_row(values, nulls) for every row of `source`, `columns` in that
// order, read as `how` says. Runs inside an Spi scope.
void read_source_rows(const SourceRelation& source, const SourceRows& how, const std::vector<SourceColumn>& columns,
                      const std::function<void(const Datum*, const bool*)>& on_row);

// How a value becomes the bytes of its class key: the binary form where equal
// bytes mean the same displayed value (by-value types, the string types), else
// the type's text output. Only class identity matters here.
struct ClassKeyReader {
    enum Kind { kByValue, kString, kPaddedString, kOutput } kind;
    int16 length;
    FmgrInfo output;

    static ClassKeyReader for_type(Oid type);
    // The key bytes of a non-NULL value; `scratch` holds a by-value datum's
    // bytes, `row_context` an output text (both valid until reused or reset).
    std::string_view read(Datum d, char* scratch, MemoryContext row_context);
};

// What a row context may hold before it is reset early (wide detoasted values).
constexpr Size kRowMemory = Size(1) << 20;

struct ValueText;

// One row's class key values (keys[i], ⊥ for NULL) and sensitive value's canonical
// text (when `sensitive` is given, from values[keys.size()]: value_text.hpp).
// Whatever reading allocates (detoasted values, output texts) goes to
// `row_context`, which the caller resets every so many rows or past kRowMemory,
// so it is bounded, not the table's size.
void read_class_row(std::vector<ClassKeyReader>& readers, std::vector<std::array<char, sizeof(Datum)>>& scratch,
                    MemoryContext row_context, const Datum* values, const bool* nulls, ValueText* sensitive,
                    Value* keys, Value* sensitive_value);

// How an aggregate reads its key arguments `first` … `first + width − 1`: each
// one's class key bytes and text, for the call's argument types, allocated in
// `context` with a child context for each row's texts (to be reset often).
struct ArgumentReaders {
    ClassKeyReader* keys = nullptr;
    ValueText* texts = nullptr;
    MemoryContext row_context = nullptr;
};
ArgumentReaders argument_readers(FunctionCallInfo fcinfo, int first, std::size_t width, MemoryContext context);

}  // namespace privrisk::pg
