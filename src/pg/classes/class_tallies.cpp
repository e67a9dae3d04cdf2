#include "classes/class_tallies.hpp"

#include <string_view>
#include <vector>

#include "classes/class_aggregator.hpp"
#include "common/args.hpp"
#include "common/row_stream.hpp"

namespace privrisk::pg {

MergedTallies merge_class_tallies(const std::string& sql, std::size_t width, bool keyed,
                                  std::pmr::memory_resource* memory) {
    std::pmr::vector<std::pmr::string> tallies(memory);
    stream_rows(sql, {}, [&](const Datum* values, const bool* nulls) {
        if (!nulls[0]) tallies.emplace_back(text_view(values[0]));
    });
    std::vector<std::string_view> sensitive, runs;
    for (const std::pmr::string& t : tallies) {
        const ClassAggregator::TallyForm form = ClassAggregator::read_tally(t, width);
        sensitive.push_back(form.sensitive);
        runs.push_back(form.run);
    }
    MergedTallies merged{run_values(sensitive), std::pmr::string(memory)};
    merged.part = keyed ? merge_keyed_runs(runs, merged.values, memory) : merge_class_runs(runs, merged.values, memory);
    return merged;
}

}  // namespace privrisk::pg
