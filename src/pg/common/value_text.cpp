#include "common/value_text.hpp"

#include "common/args.hpp"
#include "common/guard.hpp"
#include "common/privrisk_function.hpp"

#include <cstdio>
#include <cstring>

namespace privrisk::pg {

void init_value_text(ValueText* method, Oid type, MemoryContext context, bool infinite_dates) {
    method->type = type;
    method->infinite_dates = infinite_dates;
    method->kind = value_text_kind(type);
    if (method->kind == ValueText::Output) {
        Oid function;
        bool varlena;
        getTypeOutputInfo(type, &function, &varlena);
        fmgr_info_cxt(function, &method->output, context);
    }
}

ValueText::Kind value_text_kind(Oid type) {
    Oid base = getBaseType(type);
    if (base == TEXTOID || base == VARCHAROID) return ValueText::Text;
    if (base == BPCHAROID) return ValueText::Bpchar;
    if (base == DATEOID) return ValueText::Date;
    return ValueText::Output;
}

ValueText* argument_value_text(FunctionCallInfo fcinfo, int arg, void** slot) {
    if (*slot) return static_cast<ValueText*>(*slot);
    return pg_call([&] {
        Oid type = get_fn_expr_argtype(fcinfo->flinfo, arg);
        if (!OidIsValid(type))
            ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                            errmsg("cannot determine the type of argument %d", arg + 1)));
        auto* method = static_cast<ValueText*>(MemoryContextAllocZero(fcinfo->flinfo->fn_mcxt, sizeof(ValueText)));
        init_value_text(method, type, fcinfo->flinfo->fn_mcxt, true);
        *slot = method;
        return method;
    });
}

namespace {

// A finite date's ISO text, held in method->date, as PostgreSQL's ISO DateStyle writes it
// (year 0 is 1 BC: 0044-03-15 BC). Plain C: no PostgreSQL call.
std::string_view iso_date(ValueText* method, DateADT date) {
    int year, month, day;
    j2date(date + POSTGRES_EPOCH_JDATE, &year, &month, &day);
    if (year > 0) std::snprintf(method->date, sizeof method->date, "%04d-%02d-%02d", year, month, day);
    else std::snprintf(method->date, sizeof method->date, "%04d-%02d-%02d BC", 1 - year, month, day);
    return method->date;
}

}  // namespace

std::string_view value_text_of(ValueText* method, Datum value) {
    switch (method->kind) {
        case ValueText::Text:
            return text_view(value);
        case ValueText::Bpchar:
            return bpchar_view(value);
        case ValueText::Date:
            if (!DATE_NOT_FINITE(DatumGetDateADT(value))) return iso_date(method, DatumGetDateADT(value));
            break;
        case ValueText::Output:
            break;
    }
    return pg_call([&] { return value_text_slow(method, value); });
}

std::string_view value_text_slow(ValueText* method, Datum value) {
    switch (method->kind) {
        case ValueText::Text:
        case ValueText::Bpchar: {
            std::string_view v = text_bytes(value);
            if (method->kind == ValueText::Bpchar)
                while (!v.empty() && v.back() == ' ') v.remove_suffix(1);
            return v;
        }
        case ValueText::Date: {
            DateADT date = DatumGetDateADT(value);
            if (DATE_NOT_FINITE(date) && method->infinite_dates)
                return DATE_IS_NOBEGIN(date) ? "-infinity" : "infinity";
            if (DATE_NOT_FINITE(date))
                ereport(ERROR, (errcode(ERRCODE_INVALID_PARAMETER_VALUE),
                                errmsg("gen: an infinite date has no generalization")));
            return iso_date(method, date);
        }
        case ValueText::Output:
            break;
    }
    char* s = OutputFunctionCall(&method->output, value);
    return std::string_view(s, std::strlen(s));
}

bool canonical_text_installed() {
    return pg_call([] {
        Oid argtypes[1] = {ANYELEMENTOID};
        return OidIsValid(privrisk_function("canonical_text", 1, argtypes));
    });
}

}  // namespace privrisk::pg
