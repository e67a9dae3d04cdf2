#include "common/source_columns.hpp"

#include "common/row_stream.hpp"

#include <cstring>

#include "common/args.hpp"
#include "common/error.hpp"
#include "common/value_text.hpp"

namespace privrisk::pg {

SourceRelation source_relation(Oid relid) {
    char* relname = pg_call([&] { return get_rel_name(relid); });
    if (!relname) fail(ErrorKind::UndefinedObject, "relation with OID " + std::to_string(relid) + " does not exist");
    const char* qualified =
        pg_call([&] { return quote_qualified_identifier(get_namespace_name(get_rel_namespace(relid)), relname); });
    return SourceRelation{relid, relname, qualified};
}

SourceColumn source_column(const SourceRelation& source, const std::string& column, const char* role) {
    const char* name = column.c_str();
    AttrNumber attnum = pg_call([&] { return get_attnum(source.relid, name); });
    if (attnum <= 0)
        fail(ErrorKind::UndefinedObject, std::string(role) + " column " + quote_value(column) +
                                             " does not exist in relation " + quote_value(source.name));
    Oid type = pg_call([&] { return get_atttype(source.relid, attnum); });
    return SourceColumn{column, pg_call([&] { return quote_identifier(name); }), attnum, type};
}

bool readable_from_heap(Oid relid) {
    // Not a table with inheritance children: SELECT * FROM it reads theirs too.
    return pg_call([&] {
        char kind = get_rel_relkind(relid);
        // An unpopulated materialized view's heap is empty; through SQL it is the error it should be.
        if (kind == RELKIND_MATVIEW) {
            HeapTuple t = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
            bool populated = HeapTupleIsValid(t) && reinterpret_cast<Form_pg_class>(GETSTRUCT(t))->relispopulated;
            if (HeapTupleIsValid(t)) ReleaseSysCache(t);
            if (!populated) return false;
        }
        // Through SQL the table is named by its schema, which needs USAGE: so does its heap.
        return (kind == RELKIND_RELATION || kind == RELKIND_MATVIEW) && !has_subclass(relid) &&
               pg_namespace_aclcheck(get_rel_namespace(relid), GetUserId(), ACL_USAGE) == ACLCHECK_OK &&
               pg_class_aclcheck(relid, GetUserId(), ACL_SELECT) == ACLCHECK_OK &&
               check_enable_rls(relid, InvalidOid, true) != RLS_ENABLED;
    });
}

std::string source_select(const SourceRelation& source, const std::vector<std::string>& expressions) {
    std::string select = "SELECT ";
    for (std::size_t i = 0; i < expressions.size(); ++i) select += (i ? ", " : "") + expressions[i];
    return select + " FROM " + source.qualified;
}

void read_source_rows(const SourceRelation& source, const SourceRows& how, const std::vector<SourceColumn>& columns,
                      const std::function<void(const Datum*, const bool*)>& on_row) {
    if (how.from_heap) {
        std::vector<AttrNumber> attnums;
        for (const SourceColumn& c : columns) attnums.push_back(c.attnum);
        scan_table_rows(source.relid, attnums, on_row);
        return;
    }
    std::vector<std::string> expressions;
    for (const SourceColumn& c : columns) expressions.push_back(c.quoted);
    stream_rows(source_select(source, expressions), {}, on_row);
}

ClassKeyReader ClassKeyReader::for_type(Oid type) {
    ClassKeyReader r{};
    bool byval;
    pg_call([&] { get_typlenbyval(type, &r.length, &byval); });
    if (type == TEXTOID || type == VARCHAROID || type == NAMEOID) {
        r.kind = type == NAMEOID ? kOutput : kString;
    } else if (type == BPCHAROID) {
        r.kind = kPaddedString;
    } else if (byval && r.length > 0 && r.length <= static_cast<int16>(sizeof(Datum))) {
        r.kind = kByValue;
    } else {
        r.kind = kOutput;
    }
    if (r.kind == kOutput) output_function(type, &r.output, CurrentMemoryContext);
    return r;
}

std::string_view ClassKeyReader::read(Datum d, char* scratch, MemoryContext row_context) {
    switch (kind) {
        case kByValue:
            std::memcpy(scratch, &d, sizeof d);
            return std::string_view(scratch, sizeof d);
        case kString:
            return text_view(d);
        case kPaddedString:
            return bpchar_view(d);
        case kOutput:
            break;
    }
    char* text = pg_call([&] {
        MemoryContext old = MemoryContextSwitchTo(row_context);
        char* t = OutputFunctionCall(&output, d);
        MemoryContextSwitchTo(old);
        return t;
    });
    return std::string_view(text, std::strlen(text));
}

void read_class_row(std::vector<ClassKeyReader>& readers, std::vector<std::array<char, sizeof(Datum)>>& scratch,
                    MemoryContext row_context, const Datum* values, const bool* nulls, ValueText* sensitive,
                    Value* keys, Value* sensitive_value) {
    const std::size_t width = readers.size();
    // Switching contexts cannot fail; an exception switches back before it goes on.
    MemoryContext old = MemoryContextSwitchTo(row_context);
    try {
        for (std::size_t i = 0; i < width; ++i)
            keys[i] = nulls[i] ? Value() : Value(readers[i].read(values[i], scratch[i].data(), row_context));
        *sensitive_value = !sensitive || nulls[width] ? Value() : Value(value_text_of(sensitive, values[width]));
    } catch (...) {
        MemoryContextSwitchTo(old);
        throw;
    }
    MemoryContextSwitchTo(old);
}

ArgumentReaders argument_readers(FunctionCallInfo fcinfo, int first, std::size_t width, MemoryContext context) {
    ArgumentReaders r;
    pg_call([&] {
        r.keys = static_cast<ClassKeyReader*>(MemoryContextAllocZero(context, width * sizeof(ClassKeyReader)));
        r.texts = static_cast<ValueText*>(MemoryContextAllocZero(context, width * sizeof(ValueText)));
        r.row_context = AllocSetContextCreate(context, "privrisk aggregate rows", ALLOCSET_DEFAULT_SIZES);
    });
    for (std::size_t j = 0; j < width; ++j) {
        const int arg = first + static_cast<int>(j);
        Oid type = pg_call([&] { return get_fn_expr_argtype(fcinfo->flinfo, arg); });
        if (!OidIsValid(type))
            fail(ErrorKind::InvalidParameter, "cannot determine the type of argument " + std::to_string(arg));
        MemoryContext old = pg_call([&] { return MemoryContextSwitchTo(context); });
        r.keys[j] = ClassKeyReader::for_type(type);
        pg_call([&] {
            init_value_text(&r.texts[j], type, context);
            MemoryContextSwitchTo(old);
        });
    }
    return r;
}

double estimated_rows(Oid relid) {
    return pg_call([&] {
        HeapTuple t = SearchSysCache1(RELOID, ObjectIdGetDatum(relid));
        double n = HeapTupleIsValid(t) ? reinterpret_cast<Form_pg_class>(GETSTRUCT(t))->reltuples : -1;
        if (HeapTupleIsValid(t)) ReleaseSysCache(t);
        return n;
    });
}

}  // namespace privrisk::pg
