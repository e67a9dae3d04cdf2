// Level 2 (docs/measures.md): aggregates over one privrisk.hist per class. Each uses
// the smallest state that suffices: int8 (k), int8[2] (counts), float8 (ℓ), or
// the class multiset for measures that need the whole table's distribution.
// All have combine functions and are PARALLEL SAFE; none depends on row order.
#include <cstring>

#include "common/agg_state.hpp"
#include "common/args.hpp"
#include "classes/class_set.hpp"
#include "common/error.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "classes/hist_type.hpp"
#include "measures/measures.hpp"
#include "common/memory.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// The int8[2] state of average_risk and records_at_risk, {rows, classes} or
// {rows, rows at risk}; written in place only inside an aggregate.
ArrayType* counter_state(FunctionCallInfo fcinfo, int arg, const char* function, int64** pair) {
    int n;
    ArrayType* a = array_state(fcinfo, arg, function, "a one-dimensional bigint array of 2 elements without NULLs",
                               INT8OID, 2, 2, true, &n);
    *pair = reinterpret_cast<int64*>(ARR_DATA_PTR(a));
    if ((*pair)[0] < 0 || (*pair)[1] < 0)
        bad_state(function, "two counts >= 0",
                  "{" + std::to_string((*pair)[0]) + "," + std::to_string((*pair)[1]) + "}");
    return a;
}

void add_checked(int64& into, int64 v) {
    if (__builtin_add_overflow(into, v, &into)) fail(ErrorKind::ProgramLimit, "more than 2^63 - 1 rows");
}

}  // namespace

// ---- k_anonymity, prosecutor_risk: the smallest class --------------------------

PRIVRISK_FUNCTION(privrisk_k_transition) {
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_INT64(PG_GETARG_INT64(0));
    }
    int64 size = HistogramView(hist_bytes(PG_GETARG_DATUM(1))).size();
    if (PG_ARGISNULL(0)) PG_RETURN_INT64(size);
    PG_RETURN_INT64(std::min<int64>(PG_GETARG_INT64(0), size));
}

PRIVRISK_FUNCTION(privrisk_prosecutor_final) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    if (PG_GETARG_INT64(0) < 1)  // the smallest class of a release has at least one row
        bad_state("prosecutor_final", "a class size >= 1", std::to_string(PG_GETARG_INT64(0)));
    PG_RETURN_FLOAT8(1.0 / static_cast<double>(PG_GETARG_INT64(0)));
}

// ---- average_risk, records_at_risk: [rows, classes] and [rows, rows at risk] ----

PRIVRISK_FUNCTION(privrisk_average_risk_transition) {
    aggregate_context(fcinfo);
    int64* pair;
    ArrayType* a = counter_state(fcinfo, 0, "average_risk_transition", &pair);
    if (!PG_ARGISNULL(1)) {
        add_checked(pair[0], HistogramView(hist_bytes(PG_GETARG_DATUM(1))).size());
        add_checked(pair[1], 1);
    }
    PG_RETURN_ARRAYTYPE_P(a);
}

PRIVRISK_FUNCTION(privrisk_records_at_risk_transition) {
    aggregate_context(fcinfo);
    int64* pair;
    ArrayType* a = counter_state(fcinfo, 0, "records_at_risk_transition", &pair);
    if (PG_ARGISNULL(2)) fail(ErrorKind::InvalidParameter, "threshold must not be NULL");
    double threshold = PG_GETARG_FLOAT8(2);
    check_threshold(threshold);
    if (!PG_ARGISNULL(1)) {
        int64 size = HistogramView(hist_bytes(PG_GETARG_DATUM(1))).size();
        add_checked(pair[0], size);
        if (1.0 / static_cast<double>(size) > threshold) add_checked(pair[1], size);
    }
    PG_RETURN_ARRAYTYPE_P(a);
}

PRIVRISK_FUNCTION(privrisk_counter_combine) {
    aggregate_context(fcinfo);
    int64 *a, *b;
    ArrayType* state = counter_state(fcinfo, 0, "counter_combine", &a);
    counter_state(fcinfo, 1, "counter_combine", &b);
    add_checked(a[0], b[0]);
    add_checked(a[1], b[1]);
    PG_RETURN_ARRAYTYPE_P(state);
}

// Both finals divide the second counter by the first (classes/rows, at risk/rows).
PRIVRISK_FUNCTION(privrisk_counter_ratio_final) {
    int64* pair;
    counter_state(fcinfo, 0, "counter_ratio_final", &pair);
    if (pair[0] == 0) PG_RETURN_NULL();
    PG_RETURN_FLOAT8(static_cast<double>(pair[1]) / static_cast<double>(pair[0]));
}

// ---- l_diversity: the smallest per-class level ----------------------------------

PRIVRISK_FUNCTION(privrisk_l_diversity_transition) {
    std::string_view kind = PG_NARGS() > 2 && !PG_ARGISNULL(2) ? text_view(PG_GETARG_DATUM(2)) : "distinct";
    bool has_c = PG_NARGS() > 3 && !PG_ARGISNULL(3);
    if (kind != "distinct" && kind != "entropy" && kind != "recursive")
        fail(ErrorKind::InvalidParameter,
             "l_diversity kind must be 'distinct', 'entropy' or 'recursive', got " + quote_value(kind));
    if (kind == "recursive" && !has_c) fail(ErrorKind::InvalidParameter, "recursive (c,l)-diversity needs c");
    if (kind != "recursive" && has_c) fail(ErrorKind::InvalidParameter, "c applies to recursive (c,l)-diversity only");
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_FLOAT8(PG_GETARG_FLOAT8(0));
    }
    HistogramView h(hist_bytes(PG_GETARG_DATUM(1)));
    double level = kind == "distinct"  ? class_l_distinct(h)
                   : kind == "entropy" ? class_l_entropy(h)
                                       : class_l_recursive(h, PG_GETARG_FLOAT8(3));
    if (PG_ARGISNULL(0)) PG_RETURN_FLOAT8(level);
    PG_RETURN_FLOAT8(std::min(PG_GETARG_FLOAT8(0), level));
}

// ---- measures over the class multiset ---------------------------------------------

namespace {

struct ClassSetState {
    PgMemoryResource mr;
    ClassSet set;
    char kind[16];        // t_closeness: equal | ordered | hierarchical
    char hierarchy[208];  // t_closeness: the sensitive values' hierarchy, "" if none
    explicit ClassSetState(MemoryContext context) : mr(context), set(&mr), kind{}, hierarchy{} {}
};

ClassSetState* class_set_state(FunctionCallInfo fcinfo) {
    MemoryContext context = aggregate_context(fcinfo);
    if (!PG_ARGISNULL(0)) return reinterpret_cast<ClassSetState*>(PG_GETARG_POINTER(0));
    return construct_in<ClassSetState>(context, context);
}

void set_parameter(char* into, std::size_t capacity, std::string_view value, const char* what) {
    if (value.size() >= capacity) fail(ErrorKind::InvalidParameter, std::string(what) + " is too long");
    if (into[0] == '\0') {
        std::memcpy(into, value.data(), value.size());
        into[value.size()] = '\0';
    } else if (value != into) {
        fail(ErrorKind::InvalidParameter, std::string(what) + " must be the same on every row");
    }
}

}  // namespace

// class_set(hist [, kind [, hierarchy]]): collects the classes.
PRIVRISK_FUNCTION(privrisk_class_set_transition) {
    ClassSetState* s = class_set_state(fcinfo);
    if (PG_NARGS() > 2) {
        std::string_view kind = PG_ARGISNULL(2) ? "equal" : text_view(PG_GETARG_DATUM(2));
        if (kind != "equal" && kind != "ordered" && kind != "hierarchical")
            fail(ErrorKind::InvalidParameter,
                 "t_closeness kind must be 'equal', 'ordered' or 'hierarchical', got " + quote_value(kind));
        bool has_hierarchy = PG_NARGS() > 3 && !PG_ARGISNULL(3);
        if (kind == "hierarchical" && !has_hierarchy)
            fail(ErrorKind::InvalidParameter, "hierarchical t-closeness needs the sensitive values' hierarchy");
        if (kind != "hierarchical" && has_hierarchy)
            fail(ErrorKind::InvalidParameter, "a hierarchy applies to hierarchical t-closeness only");
        set_parameter(s->kind, sizeof s->kind, kind, "kind");
        if (has_hierarchy) set_parameter(s->hierarchy, sizeof s->hierarchy, text_view(PG_GETARG_DATUM(3)), "hierarchy");
    }
    if (!PG_ARGISNULL(1)) s->set.add(hist_bytes(PG_GETARG_DATUM(1)));
    PG_RETURN_POINTER(s);
}

PRIVRISK_FUNCTION(privrisk_class_set_combine) {
    aggregate_context(fcinfo);
    if (PG_ARGISNULL(1)) {
        if (PG_ARGISNULL(0)) PG_RETURN_NULL();
        PG_RETURN_POINTER(PG_GETARG_POINTER(0));
    }
    ClassSetState* s = class_set_state(fcinfo);
    auto* other = reinterpret_cast<ClassSetState*>(PG_GETARG_POINTER(1));
    if (other->kind[0]) set_parameter(s->kind, sizeof s->kind, other->kind, "kind");
    if (other->hierarchy[0]) set_parameter(s->hierarchy, sizeof s->hierarchy, other->hierarchy, "hierarchy");
    s->set.merge(other->set);
    PG_RETURN_POINTER(s);
}

// Transfer form: the two parameters as fixed fields, then the class set.
PRIVRISK_FUNCTION(privrisk_class_set_serialize) {
    aggregate_context(fcinfo);
    auto* s = reinterpret_cast<ClassSetState*>(PG_GETARG_POINTER(0));
    std::string out(s->kind, sizeof s->kind);
    out.append(s->hierarchy, sizeof s->hierarchy);
    out += s->set.serialize();
    return text_datum(out);
}

PRIVRISK_FUNCTION(privrisk_class_set_deserialize) {
    MemoryContext context = aggregate_context(fcinfo);
    std::string_view bytes = text_view(PG_GETARG_DATUM(0));
    auto* s = construct_in<ClassSetState>(context, context);
    constexpr std::size_t fixed = sizeof s->kind + sizeof s->hierarchy;
    if (bytes.size() < fixed)
        bad_state("class_set_deserialize", "at least " + std::to_string(fixed) + " bytes",
                  std::to_string(bytes.size()) + " bytes");
    std::memcpy(s->kind, bytes.data(), sizeof s->kind);
    std::memcpy(s->hierarchy, bytes.data() + sizeof s->kind, sizeof s->hierarchy);
    s->kind[sizeof s->kind - 1] = s->hierarchy[sizeof s->hierarchy - 1] = '\0';
    std::string_view kind = s->kind;
    if (!kind.empty() && kind != "equal" && kind != "ordered" && kind != "hierarchical")
        bad_state("class_set_deserialize", "a t-closeness kind", quote_value(kind));
    s->set.add_serialized(bytes.substr(fixed));
    PG_RETURN_POINTER(s);
}

namespace {

template <typename Measure>
Datum class_set_final(FunctionCallInfo fcinfo, Measure&& measure) {
    aggregate_context(fcinfo);
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    auto* s = reinterpret_cast<ClassSetState*>(PG_GETARG_POINTER(0));
    ContingencyTable table = s->set.table();
    std::optional<double> v = measure(*s, table);
    if (!v) PG_RETURN_NULL();
    PG_RETURN_FLOAT8(*v);
}

}  // namespace

PRIVRISK_FUNCTION(privrisk_t_closeness_final) {
    return class_set_final(fcinfo, [&](const ClassSetState& s, const ContingencyTable& t) -> std::optional<double> {
        std::string_view kind = s.kind[0] ? s.kind : "equal";
        if (kind == "ordered") return t_ordered(t);
        if (kind == "hierarchical") return t_hierarchical(t, cached_hierarchy(s.hierarchy));
        return t_equal(t);
    });
}

PRIVRISK_FUNCTION(privrisk_delta_disclosure_final) {
    return class_set_final(fcinfo, [](const ClassSetState&, const ContingencyTable& t) { return delta_disclosure(t); });
}

PRIVRISK_FUNCTION(privrisk_a_know_final) {
    return class_set_final(fcinfo, [](const ClassSetState&, const ContingencyTable& t) { return a_know(t); });
}

PRIVRISK_FUNCTION(privrisk_a_acc_final) {
    return class_set_final(fcinfo, [](const ClassSetState&, const ContingencyTable& t) { return a_acc(t); });
}

PRIVRISK_FUNCTION(privrisk_information_gain_final) {
    return class_set_final(fcinfo, [](const ClassSetState&, const ContingencyTable& t) { return information_gain(t); });
}
