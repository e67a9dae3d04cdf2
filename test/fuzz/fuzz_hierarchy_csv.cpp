// The hierarchy CSV reader (load_hierarchy): parsed with ';' (the first byte
// picks another delimiter when it is printable), built into a tree, and every
// leaf generalized to every level.
#include <string>

#include "hierarchy/csv.hpp"
#include "hierarchy/hierarchy.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    std::string delimiter = data[0] >= 0x21 && data[0] < 0x7f && data[0] != '"' ? std::string(1, char(data[0])) : ";";
    refused_or_read([&] {
        auto records = privrisk::parse_csv(bytes_of(data + 1, size - 1), delimiter);
        auto h = privrisk::make_tree_hierarchy("fuzz", records);
        std::string scratch;
        for (const auto& r : records)
            for (int level = 0; level <= h->height(); ++level) {
                privrisk::Value v = h->generalize(r.fields.front(), level, scratch);
                FUZZ_REQUIRE((level == h->height()) == !v.has_value());
            }
    });
    return 0;
}
