#include "classes/coded_classes.hpp"

#include <array>

#include "classes/class_histogram.hpp"
#include "classes/class_query.hpp"
#include "classes/hist_type.hpp"
#include "classes/parallel_classes.hpp"
#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "common/guard.hpp"
#include "common/row_stream.hpp"
#include "common/spi.hpp"
#include "common/value_text.hpp"

extern "C" {
#include "miscadmin.h"
}

namespace privrisk::pg {

namespace {

// What one distinct value of a quasi-identifier costs, besides its text: its index
// slot, code and string while the rows are read, then (for search) its ancestors,
// its entry in the lattice's per-level groups and the maps that number each level
// (an estimate, on the high side, measured in test/regress/sql/memory_limits.sql).
constexpr std::size_t kCodedValueBytes = 256;
constexpr std::size_t kPerLevelBytes = 16;  // past the first few levels: an ancestor id and a group entry

// One quasi-identifier while the rows stream in: its distinct values as codes.
struct CodedColumn {
    ClassKeyReader reader;
    ValueText text;
    FlatIndex codes{std::pmr::new_delete_resource()};
    std::vector<uint32_t> code_of;  // index id -> code
    uint32_t null_code = UINT32_MAX;
    std::size_t per_value = 0;  // bytes per distinct value besides its text
};

}  // namespace

CodedClasses read_coded_classes(const SourceRelation& source, const CodedClassesRequest& request) {
    const std::vector<SourceColumn>& columns = request.columns;
    const std::size_t width = request.width;
    const bool sensitive = columns.size() > width;
    CodedClasses out;
    out.values.resize(width);
    MemoryContext row_context = pg_call([] {
        return AllocSetContextCreate(CurrentMemoryContext, "privrisk coded classes rows", ALLOCSET_DEFAULT_SIZES);
    });
    std::vector<CodedColumn> coded(width);
    for (std::size_t j = 0; j < width; ++j) {
        coded[j].reader = ClassKeyReader::for_type(columns[j].type);
        coded[j].per_value = kCodedValueBytes + kPerLevelBytes * (std::size_t(j < request.heights.size() ? request.heights[j] : 0) + 1);
        pg_call([&] { init_value_text(&coded[j].text, columns[j].type, CurrentMemoryContext); });
    }
    ValueText sensitive_text{};
    if (sensitive) pg_call([&] { init_value_text(&sensitive_text, columns[width].type, CurrentMemoryContext); });

    BaseClassBuilder builder(width, sensitive);
    std::vector<uint32_t> codes(width);
    std::vector<std::array<char, sizeof(Datum)>> scratch(width);
    uint64_t rows = 0;
    // Codes in order of first appearance; NULL (⊥) is a value of its own.
    auto null_code = [&](std::size_t j) {
        CodedColumn& d = coded[j];
        if (d.null_code == UINT32_MAX) {
            d.null_code = static_cast<uint32_t>(out.values[j].size());
            out.values[j].emplace_back(std::nullopt);
        }
        return d.null_code;
    };
    // A value's code by its key bytes; text_of() gives its text when it is new.
    auto value_code = [&](std::size_t j, std::string_view key, auto&& text_of) {
        CodedColumn& d = coded[j];
        bool added;
        uint32_t index = d.codes.find_or_add(key, &added);
        if (added) {  // a new value: its code, and its text for the hierarchy
            std::string_view text = text_of();
            d.code_of.push_back(static_cast<uint32_t>(out.values[j].size()));
            out.values[j].emplace_back(std::string(text));
            out.coded_bytes += d.per_value + 2 * text.size();  // the key (≤ the text) and the text
        }
        return d.code_of[index];
    };
    auto code_key = [&](const Datum* values, const bool* nulls) {
        for (std::size_t j = 0; j < width; ++j) {
            if (nulls[j]) {
                codes[j] = null_code(j);
                continue;
            }
            Datum v = values[j];
            codes[j] = value_code(j, coded[j].reader.read(v, scratch[j].data(), row_context),
                                  [&] { return pg_call([&] { return value_text(&coded[j].text, v); }); });
        }
    };
    auto sensitive_id = [&](std::optional<std::string_view> text) {
        const std::size_t known = out.sensitive.text.size();
        const uint32_t id = out.sensitive.id(text);
        if (text && out.sensitive.text.size() > known) out.coded_bytes += kCodedValueBytes + 2 * text->size();
        return id;
    };
    const std::string what = request.what + ": the level-0 classes and the distinct values read so far";
    auto next_row = [&] {
        if ((++rows & 4095) == 0) {
            pg_call([&] {
                MemoryContextReset(row_context);
                CHECK_FOR_INTERRUPTS();
            });
            request.memory.check(builder.bytes() + out.coded_bytes, what, request.hint);
        }
    };
    auto on_row = [&](const Datum* values, const bool* nulls) {
        code_key(values, nulls);
        uint32_t s = 0;
        if (sensitive) {
            std::optional<std::string_view> text;
            if (!nulls[width]) {
                Datum v = values[width];
                text = pg_call([&] { return value_text(&sensitive_text, v); });
            }
            s = sensitive_id(text);
        }
        builder.add(codes.data(), s);
        next_row();
    };
    // Over shards, each server sends its level-0 classes with their histograms
    // (docs/scale-out.md); they are rolled up from as rows are.
    auto on_class = [&](const Datum* values, const bool* nulls) {
        code_key(values, nulls);
        HistogramView h(hist_bytes(values[width]));
        if (!sensitive) {
            builder.add(codes.data(), 0, h.size());
        } else {
            h.for_each([&](std::string_view v, int64_t count) { builder.add(codes.data(), sensitive_id(v), count); });
            if (h.bottom() > 0) builder.add(codes.data(), sensitive_id(std::nullopt), h.bottom());
        }
        next_row();
    };
    // A table read from its heap, with a text sensitive column if any: by parallel
    // workers, which send level-0 classes with their keys (parallel_classes.hpp).
    std::vector<uint32_t> sensitive_of;  // the parallel read's value index -> sensitive id
    bool handed_over = false;  // past this, a failure of the parallel read is an error: the builder has classes
    auto on_values = [&](const std::vector<std::optional<std::string>>& values) {
        handed_over = true;
        for (const auto& v : values) sensitive_of.push_back(sensitive_id(v ? std::optional<std::string_view>(*v) : std::nullopt));
    };
    auto on_keyed_class = [&](std::string_view key, const ContingencyTable::Pair* pairs, std::size_t n) {
        for_each_key_value(key, width, [&](std::size_t j, std::optional<std::string_view> bytes) {
            codes[j] = !bytes ? null_code(j) : value_code(j, *bytes, [&] {
                return key_value_text(&coded[j].text, coded[j].reader.kind == ClassKeyReader::kByValue, *bytes, row_context);
            });
        });
        if (!sensitive) {
            int64_t size = 0;
            for (std::size_t i = 0; i < n; ++i) size += pairs[i].second;
            builder.add(codes.data(), 0, size);
        } else {
            for (std::size_t i = 0; i < n; ++i) builder.add(codes.data(), sensitive_of[pairs[i].first], pairs[i].second);
        }
        next_row();
    };
    std::vector<Shard> shards = request.shards ? class_shards(source.relid, columns) : std::vector<Shard>{};
    std::vector<AttrNumber> key_attnums;
    for (std::size_t j = 0; j < width; ++j) key_attnums.push_back(columns[j].attnum);
    const bool text_sensitive = !sensitive || columns[width].type == TEXTOID || columns[width].type == VARCHAROID;
    const int workers = shards.empty() && text_sensitive && readable_from_heap(source.relid)
                            ? parallel_class_workers(source.relid, key_attnums)
                            : 0;
    Spi spi;
    // Before any class is handed over, out of shared memory or past the bound in a
    // process (its row buffers): the serial read instead.
    bool parallel = workers > 0 && in_subtransaction(
        [&](int code) { return !handed_over && parallel_read_may_fall_back(code); },
        [&] {
            out.workers = parallel_keyed_classes(source.relid, key_attnums, sensitive ? columns[width].attnum : 0,
                                                 workers, request.memory.left(), on_values, on_keyed_class);
        });
    if (!parallel && shards.empty()) {
        read_source_rows(source, source_rows(source), columns, on_row);
    } else if (!parallel) {
        std::vector<ClassColumn> level0;
        for (std::size_t j = 0; j < width; ++j) level0.push_back({columns[j], std::nullopt, 0});
        std::optional<SourceColumn> s;
        if (sensitive) s = columns[width];
        stream_rows(class_query(source, shards, level0, s), {}, on_class);
    }
    spi.finish();
    pg_call([&] { MemoryContextDelete(row_context); });
    out.classes = builder.finish();
    return out;
}

}  // namespace privrisk::pg
