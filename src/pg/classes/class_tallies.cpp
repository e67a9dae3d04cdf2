#include "classes/class_tallies.hpp"

#include <string_view>
#include <vector>

#include "classes/class_aggregator.hpp"
#include "common/args.hpp"
#include "common/row_stream.hpp"

namespace privrisk::pg {

MergedTallies merge_class_tallies(const std::string& sql, std::size_t width, std::pmr::memory_resource* memory,
                                  const std::function<void()>& at_peak) {
    // Each tally is read into a run as it arrives (the first shard's while the others still
    // tally); the bytes PostgreSQL holds for its row are not copied.
    std::vector<ClassAggregator::TallyForm> tallies;
    stream_rows(sql, {}, [&](const Datum* values, const bool* nulls) {
        if (!nulls[0]) tallies.push_back(ClassAggregator::read_tally(text_view(values[0]), width, memory));
    });
    std::vector<std::string_view> sensitive, runs;
    for (const ClassAggregator::TallyForm& t : tallies) {
        sensitive.push_back(t.sensitive);
        runs.push_back(t.run);
    }
    MergedTallies merged{run_values(sensitive), std::pmr::string(memory)};
    merged.part = merge_class_runs(runs, merged.values, memory);
    if (at_peak) at_peak();
    return merged;
}

}  // namespace privrisk::pg
