// Aggregate states and tallies that support functions accept as bytes (a
// hand-made bytea reaches them): the class set of the measures, value counts
// of the entropies, the tuple tally of match_counts and the class tally of
// audit() (its partial state, and its value as a shard sends it). The first
// byte picks the reader and its width.
#include <memory_resource>

#include "classes/class_aggregator.hpp"
#include "classes/class_runs.hpp"
#include "classes/class_tally_form.hpp"
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
            if (data[0] & 16) {  // a tally as it leaves a shard (class_tally's value), read as the coordinator does
                refused_or_read([&] {  // walked by the class reader: whatever the merge would refuse too
                    const privrisk::TallyReader reader(bytes, width, mr);
                    std::size_t values = 0;
                    reader.for_each_sensitive([&](bool, std::string_view) { ++values; });
                    for (std::size_t i = 0; i < width; ++i) (void)reader.values(i);
                    reader.for_each_class([&](const uint32_t*, std::string_view cells) {
                        privrisk::for_each_run_cell(cells, values, [](uint32_t, int64_t) {});
                    });
                });
                refused_or_read([&] {  // rebuilt into a run and merged (audit())
                    const auto form = privrisk::ClassAggregator::read_tally(bytes, width);
                    const privrisk::RunValues values = privrisk::run_values({form.sensitive});
                    const std::string part = privrisk::merge_class_runs({form.run}, values);
                    (void)privrisk::ContingencyTable::from_canonical_parts(values.values, {part});
                    const std::string keyed = privrisk::merge_keyed_runs({form.run}, values);
                    privrisk::for_each_keyed_class(
                        keyed, values.values.size(), [&](std::string_view key, auto*, std::size_t) {
                            privrisk::for_each_key_value(key, width, [](std::size_t, auto) {});
                        });
                });
                break;
            }
            refused_or_read([&] {
                privrisk::ClassAggregator a(mr, width, 64);
                a.merge_serialized(bytes);
                (void)a.finish();
            });
            break;
    }
    return 0;
}
