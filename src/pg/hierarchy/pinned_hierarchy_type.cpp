// Input, output and lookup of privrisk.pinned_hierarchy (docs/scale-out.md).
#include "hierarchy/pinned_hierarchy_type.hpp"

#include <cstring>

#include "common/args.hpp"
#include "common/error.hpp"
#include "hierarchy/hierarchy_catalog.hpp"
#include "hierarchy/pinned_hierarchy.hpp"

extern "C" {
#include "libpq/pqformat.h"
#include "mb/pg_wchar.h"
}

using namespace privrisk;
using namespace privrisk::pg;

namespace privrisk::pg {
namespace {

struct RefMemo {
    uint64_t generation;
    const Hierarchy* hierarchy;
    int length;
    char text[FLEXIBLE_ARRAY_MEMBER];
};

const Hierarchy& checked_hierarchy(const PinnedHierarchy& ref) {
    const std::string where = ref.server.empty() ? "" : " on server " + quote_value(ref.server);
    std::string digest;
    const Hierarchy* h = nullptr;
    try {
        h = &cached_hierarchy(ref.name, nullptr, &digest);
    } catch (const Error& e) {
        if (ref.server.empty()) throw;
        fail(e.kind(), std::string(e.what()) + where);
    }
    if (digest != ref.digest)
        fail(ErrorKind::InvalidParameter,
             "hierarchy " + quote_value(ref.name) + where + " is not the one pinned (digest " + digest + " here, " +
                 ref.digest + " pinned): " +
                 (ref.server.empty() ? "it changed since it was pinned" : "load the same hierarchy on every server"));
    return *h;
}

}  // namespace

const Hierarchy& pinned_hierarchy_for_call(FunctionCallInfo fcinfo, Datum ref, void** slot) {
    std::string_view text = text_view(ref);
    auto* memo = static_cast<RefMemo*>(*slot);
    if (memo && memo->generation == hierarchy_generation() && memo->length == static_cast<int>(text.size()) &&
        std::memcmp(memo->text, text.data(), text.size()) == 0)
        return *memo->hierarchy;
    const Hierarchy& h = checked_hierarchy(PinnedHierarchy::parse(text));
    if (!memo || memo->length < static_cast<int>(text.size())) {
        memo = static_cast<RefMemo*>(pg_call(
            [&] { return MemoryContextAlloc(fcinfo->flinfo->fn_mcxt, offsetof(RefMemo, text) + text.size()); }));
        *slot = memo;
    }
    memo->generation = hierarchy_generation();
    memo->hierarchy = &h;
    memo->length = static_cast<int>(text.size());
    std::memcpy(memo->text, text.data(), text.size());
    return h;
}

std::string pinned_hierarchy_text(std::string_view name, const std::string& server) {
    std::string digest;
    cached_hierarchy(name, nullptr, &digest);
    return PinnedHierarchy{std::string(name), digest, server}.text();
}

std::string repinned_hierarchy_text(std::string_view pin, const std::string& server) {
    PinnedHierarchy ref = PinnedHierarchy::parse(pin);
    ref.server.clear();  // checked here, as here
    checked_hierarchy(ref);
    ref.server = server;
    return ref.text();
}

// The stored form is the canonical text: parsed and written back on input.
Datum pin_in(const char* text, std::string_view what) { return text_datum(PinnedHierarchy::parse(text, what).text()); }

Datum pin_out(Datum pin) {
    std::string_view text = text_view(pin);
    return CStringGetDatum(pg_call([&] { return pnstrdup(text.data(), text.size()); }));
}

// A bytea has a text's layout: the bytes are the stored text.
Datum pin_send(Datum pin) { return text_datum(text_view(pin)); }

Datum pin_recv(StringInfo buf, std::string_view what) {
    std::string_view bytes(buf->data + buf->cursor, buf->len - buf->cursor);
    pg_call([&] { (void)pg_verifymbstr(bytes.data(), static_cast<int>(bytes.size()), false); });
    Datum d = text_datum(PinnedHierarchy::parse(bytes, what).text());
    buf->cursor = buf->len;
    return d;
}

}  // namespace privrisk::pg

PRIVRISK_FUNCTION(privrisk_pinned_hierarchy_in) { return pin_in(PG_GETARG_CSTRING(0), "pinned hierarchy"); }
PRIVRISK_FUNCTION(privrisk_pinned_hierarchy_out) { return pin_out(PG_GETARG_DATUM(0)); }
PRIVRISK_FUNCTION(privrisk_pinned_hierarchy_send) { return pin_send(PG_GETARG_DATUM(0)); }
PRIVRISK_FUNCTION(privrisk_pinned_hierarchy_recv) {
    return pin_recv(reinterpret_cast<StringInfo>(PG_GETARG_POINTER(0)), "pinned hierarchy");
}

// pin_hierarchy(name): the hierarchy pinned as it is defined now.
PRIVRISK_FUNCTION(privrisk_pin_hierarchy) {
    return text_datum(pinned_hierarchy_text(text_arg_view(fcinfo, 0, "hierarchy"), ""));
}
