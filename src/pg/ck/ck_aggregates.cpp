// (c,k)-safety aggregates over one privrisk.hist per class (docs/ck.md). The
// state of the curve aggregates is the O(k) two-state knapsack of [MKMGH07]
// §3.5 as a float8[] (kmax, buckets, T0[0..kmax], T1[0..kmax]), updated in place
// and merged by the combine function, so they run in parallel plans and across
// servers.
#include <algorithm>
#include <cmath>
#include <cstring>

#include "common/agg_state.hpp"
#include "common/args.hpp"
#include "ck/ck_safety.hpp"
#include "classes/class_set.hpp"
#include "common/error.hpp"
#include "classes/hist_type.hpp"
#include "common/json_text.hpp"
#include "measures/measures.hpp"
#include "common/memory.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

// A bucket's values ranked by count, descending; ties by value, ⊥ last (for the witness,
// which names values; the curves need only counts_of).
struct RankedBucket {
    BucketCounts counts;
    std::vector<std::optional<std::string>> values;  // by rank
};

RankedBucket ranked(std::string_view encoded) {
    HistogramView h(encoded);
    std::vector<std::pair<int64_t, std::optional<std::string_view>>> entries;
    h.for_each([&](std::string_view v, int64_t c) { entries.emplace_back(c, v); });
    if (h.bottom() > 0) entries.emplace_back(h.bottom(), std::nullopt);
    std::stable_sort(entries.begin(), entries.end(), [](auto& a, auto& b) { return a.first > b.first; });
    RankedBucket r;
    r.counts.size = 0;
    for (auto& [c, v] : entries) {
        r.counts.sorted.push_back(c);
        r.counts.size += c;
        r.values.emplace_back(v ? std::optional<std::string>(std::string(*v)) : std::nullopt);
    }
    return r;
}

// Memo of f_b per call site, destroyed with the call site's memory context.
struct CurveCache {
    int hmax;
    Minimize1Cache cache;
    explicit CurveCache(int h) : hmax(h), cache(h) {}
};

void destroy_cache(void* arg) { static_cast<CurveCache*>(arg)->~CurveCache(); }

Minimize1Cache& curve_cache(FunctionCallInfo fcinfo, int hmax) {
    auto* c = static_cast<CurveCache*>(fcinfo->flinfo->fn_extra);
    if (c && c->hmax == hmax) return c->cache;
    MemoryContext context = fcinfo->flinfo->fn_mcxt;
    c = construct_in<CurveCache>(context, hmax);
    auto* callback = static_cast<MemoryContextCallback*>(
        pg_call([&] { return MemoryContextAllocZero(context, sizeof(MemoryContextCallback)); }));
    callback->func = destroy_cache;
    callback->arg = c;
    pg_call([&] { MemoryContextRegisterResetCallback(context, callback); });
    fcinfo->flinfo->fn_extra = c;
    return c->cache;
}

// State: int8[] = {kmax, buckets, bits of c (a float8; NaN unless ck_safe), T0[0..kmax], T1[0..kmax]},
// T as CkKnapsack's fixed-point logarithms.
constexpr int kHeader = 3;

constexpr const char* kKnapsackShape =
    "a one-dimensional bigint array of 2 * kmax + 5 elements (kmax 0 to 200) without NULLs";

// The knapsack state of argument `arg`, its shape checked (cheap: per row); *kmax from its header.
ArrayType* knapsack_state(FunctionCallInfo fcinfo, int arg, const char* function, bool writable, int* kmax) {
    int n;
    ArrayType* a = array_state(fcinfo, arg, function, kKnapsackShape, INT8OID, kHeader + 2, kHeader + 2 * (kMaxCkK + 1),
                               writable, &n);
    int64 k = reinterpret_cast<int64*>(ARR_DATA_PTR(a))[0];
    if (k < 0 || k > kMaxCkK || n != kHeader + 2 * (k + 1))
        bad_state(function, kKnapsackShape, elements(n) + " with kmax " + std::to_string(k));
    *kmax = static_cast<int>(k);
    return a;
}

int64* state_data(ArrayType* a) { return reinterpret_cast<int64*>(ARR_DATA_PTR(a)); }

double state_c(ArrayType* a) {
    double c;
    std::memcpy(&c, reinterpret_cast<int64*>(ARR_DATA_PTR(a)) + 2, sizeof c);
    return c;
}

// The values a state made outside this aggregate may hold: buckets >= 0, c NaN
// or in (0, 1], and every logarithm a marker or within the bound that keeps
// sums of two from overflowing (|L| < 2^61).
void check_knapsack_values(ArrayType* a, int kmax, const char* function) {
    const int64* d = state_data(a);
    if (d[1] < 0) bad_state(function, "a bucket count >= 0", std::to_string(d[1]));
    double c = state_c(a);
    if (!std::isnan(c) && !(c > 0 && c <= 1)) bad_state(function, "c in (0, 1]", number_text(c));
    constexpr int64 bound = int64{1} << 61;
    for (int i = kHeader; i < kHeader + 2 * (kmax + 1); ++i)
        if (d[i] != CkKnapsack::kZero && d[i] != CkKnapsack::kInfeasible && (d[i] <= -bound || d[i] >= bound))
            bad_state(function, "knapsack logarithms within (-2^61, 2^61)", std::to_string(d[i]));
}

// A knapsack state read in full (combine, final): shape and values checked.
CkKnapsack knapsack_of(ArrayType* a, int kmax, const char* function) {
    check_knapsack_values(a, kmax, function);
    int64* d = state_data(a);
    std::vector<int64_t> t0(d + kHeader, d + kHeader + kmax + 1),
        t1(d + kHeader + kmax + 1, d + kHeader + 2 * (kmax + 1));
    return CkKnapsack::from_state(kmax, t0, t1, d[1]);
}

CkKnapsack knapsack_arg(FunctionCallInfo fcinfo, int arg, const char* function) {
    int kmax;
    ArrayType* a = knapsack_state(fcinfo, arg, function, false, &kmax);
    return knapsack_of(a, kmax, function);
}

Datum int8_array(const std::vector<int64_t>& v) {
    Datum* items = static_cast<Datum*>(pg_call([&] { return palloc(sizeof(Datum) * (v.size() ? v.size() : 1)); }));
    for (std::size_t i = 0; i < v.size(); ++i) items[i] = Int64GetDatum(v[i]);
    int n = static_cast<int>(v.size());
    return pg_call(
        [&] { return PointerGetDatum(construct_array(items, n, INT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE)); });
}

Datum state_datum(const CkKnapsack& k, double c) {
    std::vector<int64_t> v{k.kmax(), k.buckets(), 0};
    std::memcpy(&v[2], &c, sizeof c);
    v.insert(v.end(), k.t0().begin(), k.t0().end());
    v.insert(v.end(), k.t1().begin(), k.t1().end());
    return int8_array(v);
}

// Writes k's logarithms into the array a (same kmax), in place: a is the aggregate's own or a private copy.
void store(ArrayType* a, const CkKnapsack& k) {
    int64* d = state_data(a);
    std::copy(k.t0().begin(), k.t0().end(), d + kHeader);
    std::copy(k.t1().begin(), k.t1().end(), d + kHeader + k.kmax() + 1);
}

int k_argument(FunctionCallInfo fcinfo, int i, const char* what) {
    if (PG_ARGISNULL(i)) fail(ErrorKind::InvalidParameter, std::string(what) + " must not be NULL");
    int k = PG_GETARG_INT32(i);
    check_ck_k(k);
    return k;
}

Datum float8_array(const std::vector<double>& v) {
    Datum* items = static_cast<Datum*>(pg_call([&] { return palloc(sizeof(Datum) * (v.size() ? v.size() : 1)); }));
    for (std::size_t i = 0; i < v.size(); ++i) items[i] = Float8GetDatum(v[i]);
    int n = static_cast<int>(v.size());
    return pg_call(
        [&] { return PointerGetDatum(construct_array(items, n, FLOAT8OID, 8, FLOAT8PASSBYVAL, TYPALIGN_DOUBLE)); });
}

}  // namespace

namespace {

// A bucket's counts, descending (values are not needed for the curve).
void counts_of(std::string_view encoded, BucketCounts& b) {
    HistogramView h(encoded);
    b.sorted.clear();
    b.size = 0;
    h.for_each([&](std::string_view, int64_t c) { b.sorted.push_back(c), b.size += c; });
    if (h.bottom() > 0) b.sorted.push_back(h.bottom()), b.size += h.bottom();
    std::sort(b.sorted.rbegin(), b.sorted.rend());
}

// Adds the bucket of argument 1 to the knapsack state of argument 0, in place.
Datum ck_add(FunctionCallInfo fcinfo, int kmax, double c) {
    aggregate_context(fcinfo);
    if (Datum first; combine_with_null(fcinfo, &first)) return first;
    ArrayType* a = nullptr;
    int64* d = nullptr;
    if (!PG_ARGISNULL(0)) {
        int state_kmax;
        a = knapsack_state(fcinfo, 0, "ck_transition", true, &state_kmax);
        d = state_data(a);
        if (state_kmax != kmax) fail(ErrorKind::InvalidParameter, "k must be the same on every row");
        ++d[1];
        // Disclosure 1 at every k already: no bucket can change the curve ([MKMGH07]'s early exit).
        if (ck_saturated(d + kHeader + kmax + 1, kmax)) PG_RETURN_ARRAYTYPE_P(a);
    }
    static thread_local BucketCounts b;
    counts_of(hist_bytes(PG_GETARG_DATUM(1)), b);
    const Minimize1Cache::Entry& e = curve_cache(fcinfo, kmax + 1).entry(b);
    if (!a) {
        CkKnapsack k(kmax);
        std::vector<int64_t> t0 = k.t0(), t1 = k.t1();
        ck_step(t0.data(), t1.data(), kmax, e);
        return state_datum(CkKnapsack::from_state(kmax, t0, t1, 1),
                           c);  // PostgreSQL copies it into the aggregate context
    }
    ck_step(d + kHeader, d + kHeader + kmax + 1, kmax, e);
    PG_RETURN_ARRAYTYPE_P(a);
}

}  // namespace

// ck_max_disclosure(hist, k), ck_disclosure_curve(hist, kmax).
PRIVRISK_FUNCTION(privrisk_ck_transition) { return ck_add(fcinfo, k_argument(fcinfo, 2, "k"), NAN); }

// ck_safe(hist, c, k): c is kept in the state for the final function.
PRIVRISK_FUNCTION(privrisk_ck_safe_transition) {
    if (PG_ARGISNULL(2)) fail(ErrorKind::InvalidParameter, "c must not be NULL");
    double c = PG_GETARG_FLOAT8(2);
    if (!(c > 0 && c <= 1)) fail(ErrorKind::InvalidParameter, "c must be in (0, 1], got " + number_text(c));
    return ck_add(fcinfo, k_argument(fcinfo, 3, "k"), c);
}

PRIVRISK_FUNCTION(privrisk_ck_combine) {
    if (Datum first; combine_with_null(fcinfo, &first)) return first;
    if (PG_ARGISNULL(0)) PG_RETURN_DATUM(PG_GETARG_DATUM(1));  // copied into the aggregate context by PostgreSQL
    int kmax;
    ArrayType* a = knapsack_state(fcinfo, 0, "ck_combine", true, &kmax);
    CkKnapsack k = knapsack_of(a, kmax, "ck_combine");
    int other_kmax;
    ArrayType* b = knapsack_state(fcinfo, 1, "ck_combine", false, &other_kmax);
    if (kmax != other_kmax)
        fail(ErrorKind::InvalidParameter, "ck_combine: states of different kmax (" + std::to_string(kmax) + " and " +
                                              std::to_string(other_kmax) + ")");
    CkKnapsack other = knapsack_of(b, other_kmax, "ck_combine");
    int64 buckets;
    if (__builtin_add_overflow(state_data(a)[1], state_data(b)[1], &buckets))
        bad_state("ck_combine", "bucket counts adding up below 2^63", "more");
    k.merge(other);
    store(a, k);
    state_data(a)[1] = buckets;
    state_data(a)[2] = state_data(b)[2];  // c, if any
    PG_RETURN_ARRAYTYPE_P(a);
}

PRIVRISK_FUNCTION(privrisk_ck_curve_final) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    return float8_array(knapsack_arg(fcinfo, 0, "ck_curve_final").curve());
}

PRIVRISK_FUNCTION(privrisk_ck_max_final) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    PG_RETURN_FLOAT8(knapsack_arg(fcinfo, 0, "ck_max_final").curve().back());
}

// ck_safe(hist, c, k): strictly below c; a value within 1e-12 (relative) of c is unsafe.
PRIVRISK_FUNCTION(privrisk_ck_safe_final) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    int kmax;
    ArrayType* a = knapsack_state(fcinfo, 0, "ck_safe_final", false, &kmax);
    double md = knapsack_of(a, kmax, "ck_safe_final").curve().back();
    PG_RETURN_BOOL(strictly_below(md, state_c(a)));
}

// neg_disclosure_curve: state float8[] = {kmax, MDneg_0 .. MDneg_kmax}, combined by maximum.
namespace {

constexpr const char* kNegShape =
    "a one-dimensional float8 array of kmax + 2 elements (kmax 0 to 200, then values in [0, 1]) without NULLs";

// The neg state of argument `arg`: shape and kmax checked; with `values`, every MD in [0, 1] too.
double* neg_state(FunctionCallInfo fcinfo, int arg, const char* function, bool writable, bool values, ArrayType** array,
                  int* kmax) {
    int n;
    ArrayType* a = array_state(fcinfo, arg, function, kNegShape, FLOAT8OID, 2, kMaxCkK + 2, writable, &n);
    double* d = reinterpret_cast<double*>(ARR_DATA_PTR(a));
    if (d[0] != n - 2) bad_state(function, kNegShape, elements(n) + " with kmax " + number_text(d[0]));
    if (values)
        for (int i = 1; i < n; ++i)
            if (!(d[i] >= 0 && d[i] <= 1)) bad_state(function, kNegShape, "the value " + number_text(d[i]));
    *array = a;
    *kmax = n - 2;
    return d;
}

}  // namespace

PRIVRISK_FUNCTION(privrisk_neg_transition) {
    aggregate_context(fcinfo);
    int kmax = k_argument(fcinfo, 2, "kmax");
    if (Datum first; combine_with_null(fcinfo, &first)) return first;
    BucketCounts b;
    counts_of(hist_bytes(PG_GETARG_DATUM(1)), b);
    std::vector<double> c = neg_bucket_curve(b, kmax);
    if (PG_ARGISNULL(0)) {
        c.insert(c.begin(), static_cast<double>(kmax));
        return float8_array(c);
    }
    ArrayType* a;
    int state_kmax;
    double* d = neg_state(fcinfo, 0, "neg_transition", true, false, &a, &state_kmax);
    if (state_kmax != kmax) fail(ErrorKind::InvalidParameter, "kmax must be the same on every row");
    for (int k = 0; k <= kmax; ++k) d[k + 1] = std::max(d[k + 1], c[k]);
    PG_RETURN_ARRAYTYPE_P(a);
}

PRIVRISK_FUNCTION(privrisk_neg_combine) {
    if (Datum first; combine_with_null(fcinfo, &first)) return first;
    if (PG_ARGISNULL(0)) PG_RETURN_DATUM(PG_GETARG_DATUM(1));
    ArrayType *a, *b;
    int kmax, other_kmax;
    double* x = neg_state(fcinfo, 0, "neg_combine", true, true, &a, &kmax);
    const double* y = neg_state(fcinfo, 1, "neg_combine", false, true, &b, &other_kmax);
    if (kmax != other_kmax)
        fail(ErrorKind::InvalidParameter, "neg_combine: states of different kmax (" + std::to_string(kmax) + " and " +
                                              std::to_string(other_kmax) + ")");
    for (int i = 1; i <= kmax + 1; ++i) x[i] = std::max(x[i], y[i]);
    PG_RETURN_ARRAYTYPE_P(a);
}

PRIVRISK_FUNCTION(privrisk_neg_final) {
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    ArrayType* a;
    int kmax;
    const double* d = neg_state(fcinfo, 0, "neg_final", false, true, &a, &kmax);
    return float8_array(std::vector<double>(d + 1, d + kmax + 2));
}

// ck_worst_case(hist, k): the class multiset (internal, as the other set measures),
// then the knapsack with back-pointers over the distinct buckets.
namespace {

struct WorstCaseState {
    PgMemoryResource mr;
    ClassSet set;
    int k;
    explicit WorstCaseState(MemoryContext context) : mr(context), set(&mr), k(-1) {}
};

std::string json_string(const std::optional<std::string>& v) {
    if (!v) return "null";
    std::string out;
    append_json_string(out, *v);
    return out;
}

}  // namespace

PRIVRISK_FUNCTION(privrisk_ck_worst_case_transition) {
    MemoryContext context = aggregate_context(fcinfo);
    int k = k_argument(fcinfo, 2, "k");
    auto* s = PG_ARGISNULL(0) ? construct_in<WorstCaseState>(context, context)
                              : reinterpret_cast<WorstCaseState*>(PG_GETARG_POINTER(0));
    if (s->k >= 0 && s->k != k) fail(ErrorKind::InvalidParameter, "k must be the same on every row");
    s->k = k;
    if (!PG_ARGISNULL(1)) s->set.add(hist_bytes(PG_GETARG_DATUM(1)));
    PG_RETURN_POINTER(s);
}

PRIVRISK_FUNCTION(privrisk_ck_worst_case_combine) {
    MemoryContext context = aggregate_context(fcinfo);
    if (Datum first; combine_with_null(fcinfo, &first)) return first;
    auto* s = PG_ARGISNULL(0) ? construct_in<WorstCaseState>(context, context)
                              : reinterpret_cast<WorstCaseState*>(PG_GETARG_POINTER(0));
    auto* other = reinterpret_cast<WorstCaseState*>(PG_GETARG_POINTER(1));
    if (s->k >= 0 && other->k >= 0 && s->k != other->k)
        fail(ErrorKind::InvalidParameter, "k must be the same on every row");
    if (other->k >= 0) s->k = other->k;
    s->set.merge(other->set);
    PG_RETURN_POINTER(s);
}

PRIVRISK_FUNCTION(privrisk_ck_worst_case_serialize) {
    aggregate_context(fcinfo);
    auto* s = reinterpret_cast<WorstCaseState*>(PG_GETARG_POINTER(0));
    std::string out(reinterpret_cast<const char*>(&s->k), sizeof s->k);
    out += s->set.serialize();
    return text_datum(out);
}

PRIVRISK_FUNCTION(privrisk_ck_worst_case_deserialize) {
    MemoryContext context = aggregate_context(fcinfo);
    std::string_view bytes = text_view(PG_GETARG_DATUM(0));
    if (bytes.size() < sizeof(int))
        bad_state("ck_worst_case_deserialize", "at least 4 bytes", std::to_string(bytes.size()) + " bytes");
    auto* s = construct_in<WorstCaseState>(context, context);
    std::memcpy(&s->k, bytes.data(), sizeof s->k);
    if (s->k < -1 || s->k > kMaxCkK) bad_state("ck_worst_case_deserialize", "k from 0 to 200", std::to_string(s->k));
    s->set.add_serialized(bytes.substr(sizeof s->k));
    if (s->k < 0 && s->set.distinct_classes() > 0)
        bad_state("ck_worst_case_deserialize", "k from 0 to 200", "classes without k");
    PG_RETURN_POINTER(s);
}

PRIVRISK_FUNCTION(privrisk_ck_worst_case_final) {
    aggregate_context(fcinfo);  // its argument is an internal pointer: only an aggregate has one
    if (PG_ARGISNULL(0)) PG_RETURN_NULL();
    auto* s = reinterpret_cast<WorstCaseState*>(PG_GETARG_POINTER(0));
    if (s->set.distinct_classes() == 0) PG_RETURN_NULL();
    // Distinct buckets, each at most k+1 times (more copies cannot receive atoms), in a canonical order.
    std::vector<std::pair<std::string, int64_t>> classes = s->set.entries();
    std::sort(classes.begin(), classes.end());
    std::vector<RankedBucket> buckets;
    std::vector<BucketCounts> counts;
    for (auto& [encoded, times] : classes)
        for (int64_t i = 0; i < std::min<int64_t>(times, s->k + 1); ++i) {
            buckets.push_back(ranked(encoded));
            counts.push_back(buckets.back().counts);
        }
    CkWitness w = ck_worst_case(counts, s->k);
    std::string json = "{\"k\": " + std::to_string(s->k) + ", \"max_disclosure\": " + number_text(w.max_disclosure) +
                       ", \"r_min\": " + number_text(w.r_min);
    auto describe = [&](const CkWitness::Atom& a) {
        const RankedBucket& b = buckets[a.bucket];
        std::string hist = "[";
        for (std::size_t r = 0; r < b.values.size(); ++r)
            hist += (r ? ", [" : "[") + json_string(b.values[r]) + ", " + std::to_string(b.counts.sorted[r]) + "]";
        hist += "]";
        bool absent = a.value >= static_cast<int>(b.values.size());
        return "{\"bucket\": " + hist + ", \"member\": " + std::to_string(a.member) +
               ", \"value\": " + (absent ? std::string("null") : json_string(b.values[a.value])) + "}";
    };
    json += ", \"target\": " + describe(w.target) + ", \"implications\": [";
    for (std::size_t i = 0; i < w.antecedents.size(); ++i)
        json += std::string(i ? ", " : "") + "{\"if\": " + describe(w.antecedents[i]) + ", \"then\": \"target\"}";
    json += "]}";
    return jsonb_datum(json);
}
