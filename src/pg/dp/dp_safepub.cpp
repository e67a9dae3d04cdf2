// dp_release, mechanism safepub (docs/dp.md).
#include "dp/dp_release.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace privrisk::pg::dp {

// SafePub: sample with β, generalize to the node, suppress classes under k.
DpOutput* release_safepub(Request& req, MemoryContext memory) {
    DpParameters p = dp_parameters(req.epsilon, req.delta);
    SourceRelation source = source_relation(req.relid);
    std::string levels;
    for (std::size_t j = 0; j < req.columns.size(); ++j)
        levels += (j ? ", " : "") + std::to_string(req.columns[j].level);
    auto columns =
        open_source(req, source,
                    Spend{req.epsilon, req.delta, "safepub",
                          parameters_json(req, "\"levels\": [" + levels + "], \"beta\": " + json_number(p.beta) +
                                                   ", \"k\": " + std::to_string(p.k)),
                          req.seed.has_value()});
    const std::size_t width = req.columns.size();
    std::vector<TextIds> released_values(width);
    std::vector<std::vector<uint32_t>> released_of(width);  // code -> released id
    DpRandom random = run_random(req.seed);
    const uint64_t threshold = DpRandom::inclusion_threshold(p.beta);
    SampleClasses counted(width);  // every row of the source, per released class
    std::vector<uint32_t> ids(width);
    std::vector<int> levels_of;
    for (const DpColumn& c : req.columns) levels_of.push_back(c.level);
    std::string scratch;
    const ReadChoice read = choose_read(req.relid, columns, columns.size(), {true, true, false, false});
    const bool generalized = !read.shards.empty();  // the shards sent classes: values come generalized
    int64_t rows = count_source(
        req, source, columns, read, levels_of,
        [&](const uint32_t* codes, int64_t n) {
            for (std::size_t j = 0; j < width; ++j) ids[j] = released_of[j][codes[j]];
            counted.add(ids.data(), n);
        },
        [&](std::size_t j, uint32_t code) {
            DpColumn& c = req.columns[j];
            const auto& v = c.values.text[code];
            Value g = std::nullopt;
            if (v) {
                if (!generalized) c.check_value(*v, c.level);
                g = c.hierarchy && !generalized ? c.hierarchy->generalize(*v, c.level, scratch) : Value(*v);
            }
            released_of[j].push_back(released_values[j].id(g));
        });
    if (p.k > rows)
        fail(ErrorKind::InvalidParameter, "delta " + number_text(req.delta) +
                                              " needs classes of at least k = " + std::to_string(p.k) +
                                              " sampled rows, more than the " + std::to_string(rows) + " rows of " +
                                              quote_value(source.name) + ": choose a larger delta");
    // Each class's sampled rows: a function of its values and count alone.
    std::vector<const std::vector<std::optional<std::string>>*> texts;
    for (auto& r : released_values) texts.push_back(&r.text);
    SampleClasses sample(width);
    std::vector<std::optional<std::string_view>> values(width);
    for (uint32_t c = 0; c < counted.classes(); ++c) {
        const uint32_t* class_ids = counted.ids(c);
        for (std::size_t j = 0; j < width; ++j) {
            const auto& t = (*texts[j])[class_ids[j]];
            values[j] = t ? std::optional<std::string_view>(*t) : std::nullopt;
        }
        const int64_t n = sampled_rows(random, values, counted.rows(c), threshold);
        if (n > 0) sample.add(class_ids, n);
        if ((c & 4095) == 4095) pg_call([] { CHECK_FOR_INTERRUPTS(); });
    }
    SampleClasses::Released kept = sample.finish(p.k, random, by_values(sample, texts));
    // Only what the release shows anyway (no row) and public parameters: the
    // sample's size and classes are not covered by the privacy guarantee.
    if (kept.classes.empty())
        notice_nothing_released(
            req, "every class of the sample had fewer than k = " + std::to_string(p.k) + " rows and was suppressed");
    return output_classes(sample, kept, texts, memory);
}

}  // namespace privrisk::pg::dp
