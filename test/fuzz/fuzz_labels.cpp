// Label strings: column labels (SECURITY LABEL FOR privrisk) and pinned
// hierarchy names (name@digest[@server]); what parses prints back the same.
#include "hierarchy/pinned_hierarchy.hpp"
#include "labels/column_label.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    std::string_view text = bytes_of(data, size);
    refused_or_read([&] { FUZZ_REQUIRE(privrisk::ColumnLabel::parse(text).text() == text); });
    refused_or_read([&] {
        privrisk::PinnedHierarchy p = privrisk::PinnedHierarchy::parse(text);
        FUZZ_REQUIRE(privrisk::PinnedHierarchy::parse(p.text()).text() == p.text());
    });
    return 0;
}
