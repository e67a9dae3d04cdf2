// Aggregate states and tallies that support functions accept as bytes (a
// hand-made bytea reaches them): the class set of the measures, value counts
// of the entropies, the tuple tally of match_counts and the class tally of
// audit(). The first byte picks the reader and its width.
#include <memory_resource>

#include "classes/class_aggregator.hpp"
#include "classes/class_set.hpp"
#include "classes/tuple_tally.hpp"
#include "information/value_counts.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    if (size == 0) return 0;
    std::string_view bytes = bytes_of(data + 1, size - 1);
    std::pmr::memory_resource* mr = std::pmr::new_delete_resource();
    const std::size_t width = 1 + (data[0] >> 2) % 4;
    switch (data[0] & 3) {
        case 0:
            refused_or_read([&] {
                privrisk::ClassSet s(mr);
                s.add_serialized(bytes);
                (void)s.table();
            });
            break;
        case 1:
            refused_or_read([&] {
                privrisk::ValueCounts c(mr, (data[0] & 4) != 0);
                c.add_serialized(bytes);
            });
            break;
        case 2:
            refused_or_read([&] {
                privrisk::TupleTally t(mr, width);
                t.merge_serialized(bytes);
            });
            break;
        case 3:
            refused_or_read([&] {
                privrisk::ClassAggregator a(mr, width, 64);
                a.merge_serialized(bytes);
                (void)a.finish();
            });
            break;
    }
    return 0;
}
