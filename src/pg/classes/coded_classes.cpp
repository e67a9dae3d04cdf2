#include "classes/coded_classes.hpp"
#include "classes/read_choice.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <optional>

#include "classes/class_aggregator.hpp"
#include "classes/class_histogram.hpp"
#include "classes/class_query.hpp"
#include "classes/class_runs.hpp"
#include "classes/class_tally_form.hpp"
#include "classes/hist_type.hpp"
#include "classes/parallel_classes.hpp"
#include "common/activity_progress.hpp"
#include "common/args.hpp"
#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "common/guard.hpp"
#include "common/memory.hpp"
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

// Codes the values of the rows or classes read, in order of first appearance (NULL,
// ⊥, is a value of its own), and adds them to the level-0 classes; checks the
// memory they hold every 4,096 rows, classes or values of a shard's tally.
class ClassCoder {
public:
    ClassCoder(const CodedClassesRequest& request, CodedClasses& out, MemoryContext row_context,
               RowsReadProgress* progress)
        : request_(request),
          out_(out),
          width_(request.width),
          sensitive_(request.columns.size() > request.width),
          row_context_(row_context),
          progress_(progress),
          coded_(width_),
          codes_(width_),
          scratch_(width_),
          builder_(width_, sensitive_),
          what_(request.what + ": the level-0 classes and the distinct values read so far") {
        out_.values.resize(width_);
        for (std::size_t j = 0; j < width_; ++j) {
            coded_[j].reader = ClassKeyReader::for_type(request.columns[j].type);
            const int height = j < request.heights.size() ? request.heights[j] : 0;
            coded_[j].per_value = kCodedValueBytes + kPerLevelBytes * (std::size_t(height) + 1);
            pg_call([&] { init_value_text(&coded_[j].text, request.columns[j].type, CurrentMemoryContext); });
        }
        if (sensitive_)
            pg_call(
                [&] { init_value_text(&sensitive_text_, request.columns[width_].type, CurrentMemoryContext, true); });
    }

    // A row of the source: the quasi-identifiers, then the sensitive value. What
    // reading them allocates (detoasted values, output texts) goes to the row
    // context, reset every 4,096 rows or past kRowMemory (wide values): new values
    // are copied when coded.
    void on_row(const Datum* values, const bool* nulls) {
        MemoryContext caller = MemoryContextSwitchTo(row_context_);
        code_key(values, nulls);
        uint32_t s = 0;
        if (sensitive_) {
            std::optional<std::string_view> text;
            if (!nulls[width_]) {
                Datum v = values[width_];
                text = value_text_of(&sensitive_text_, v);
            }
            s = sensitive_id(text);
        }
        MemoryContextSwitchTo(caller);
        builder_.add(codes_.data(), s);
        if (row_context_->mem_allocated > kRowMemory) pg_call([&] { MemoryContextReset(row_context_); });
        next_row();
    }

    // A shard's class: its key values, then its histogram (the per-class query over shards).
    void on_class(const Datum* values, const bool* nulls) {
        code_key(values, nulls);
        HistogramView h(hist_bytes(values[width_]));
        count_shard_rows(h.size());  // each hist is within its bound; their sum must be too
        if (!sensitive_) {
            builder_.add(codes_.data(), 0, h.size());
        } else {
            h.for_each([&](std::string_view v, int64_t count) { builder_.add(codes_.data(), sensitive_id(v), count); });
            if (h.bottom() > 0) builder_.add(codes_.data(), sensitive_id(std::nullopt), h.bottom());
        }
        next_row(h.size());
    }

    // A shard's tally (its class_tally, class_tally_form.hpp): each of its values coded
    // once, by its text (which keys it in this read), then its classes by their codes. A
    // class several shards met comes from each; the builder adds them up.
    // `memory`: where its codes are kept (the caller's bound).
    void on_tally(const TallyReader& tally, std::pmr::memory_resource* memory) {
        // By the tally's code (0, ⊥: coded when met); the memory checked as values are coded,
        // since a shard may send many values and few classes.
        std::vector<std::pmr::vector<uint32_t>> code_of;
        std::size_t coded = 0;
        for (std::size_t j = 0; j < width_; ++j) {
            std::pmr::vector<uint32_t>& codes = code_of.emplace_back(memory);
            codes.reserve(tally.values(j).size() + 1);
            codes.push_back(UINT32_MAX);
            for (std::string_view text : tally.values(j)) {
                codes.push_back(value_code(j, text, [&] { return text; }));
                if ((++coded & 4095) == 0) check_memory();
            }
        }
        std::pmr::vector<uint32_t> sensitive_of(memory);  // by the tally's value id
        tally.for_each_sensitive([&](bool present, std::string_view text) {
            sensitive_of.push_back(
                !sensitive_ ? 0 : sensitive_id(present ? std::optional<std::string_view>(text) : std::nullopt));
            if ((++coded & 4095) == 0) check_memory();
        });
        tally.for_each_class([&](const uint32_t* codes, std::string_view cells) {
            for (std::size_t j = 0; j < width_; ++j) codes_[j] = codes[j] ? code_of[j][codes[j]] : null_code(j);
            int64_t size = 0;
            for_each_run_cell(cells, sensitive_of.size(), [&](uint32_t id, int64_t count) {
                count_shard_rows(count);
                size += count;  // at most the rows counted
                if (sensitive_) builder_.add(codes_.data(), sensitive_of[id], count);
            });
            if (!sensitive_) builder_.add(codes_.data(), 0, size);
            next_row(size);
        });
    }

    // A parallel read's sensitive values (parallel_classes.hpp), before its classes.
    void on_values(const std::vector<std::optional<std::string>>& values) {
        handed_over_ = true;
        for (const auto& v : values)
            sensitive_of_.push_back(sensitive_id(v ? std::optional<std::string_view>(*v) : std::nullopt));
    }

    // A parallel read's class: its key, and its (value index, count) pairs.
    void on_keyed_class(std::string_view key, const ContingencyTable::Pair* pairs, std::size_t n) {
        for_each_key_value(key, width_, [&](std::size_t j, std::optional<std::string_view> bytes) {
            codes_[j] = !bytes ? null_code(j) : value_code(j, *bytes, [&] {
                return key_value_text(&coded_[j].text, coded_[j].reader.kind == ClassKeyReader::kByValue, *bytes,
                                      row_context_);
            });
        });
        if (!sensitive_) {
            int64_t size = 0;
            for (std::size_t i = 0; i < n; ++i) size += pairs[i].second;
            builder_.add(codes_.data(), 0, size);
        } else {
            for (std::size_t i = 0; i < n; ++i)
                builder_.add(codes_.data(), sensitive_of_[pairs[i].first], pairs[i].second);
        }
        next_row();
    }

    // Memory the read holds besides the classes (the shards' tallies, freed once they are
    // coded), asked for at each check and counted against the bound; nullptr: none.
    void hold(std::function<std::size_t()> held) { held_ = std::move(held); }

    // Past this, a failure of the parallel read is an error: the classes have some of its rows.
    bool handed_over() const { return handed_over_; }
    NodeClasses finish() { return builder_.finish(); }

private:
    uint32_t null_code(std::size_t j) {
        CodedColumn& d = coded_[j];
        if (d.null_code == UINT32_MAX) {
            d.null_code = static_cast<uint32_t>(out_.values[j].size());
            out_.values[j].emplace_back(std::nullopt);
        }
        return d.null_code;
    }
    // A value's code by its key bytes; text_of() gives its text when it is new.
    template <typename TextOf>
    uint32_t value_code(std::size_t j, std::string_view key, TextOf&& text_of) {
        CodedColumn& d = coded_[j];
        bool added;
        uint32_t index = d.codes.find_or_add(key, &added);
        if (added) {  // a new value: its code, and its text for the hierarchy
            std::string_view text = text_of();
            d.code_of.push_back(static_cast<uint32_t>(out_.values[j].size()));
            out_.values[j].emplace_back(std::string(text));
            out_.coded_bytes += d.per_value + 2 * text.size();  // the key (≤ the text) and the text
        }
        return d.code_of[index];
    }
    void code_key(const Datum* values, const bool* nulls) {
        for (std::size_t j = 0; j < width_; ++j) {
            if (nulls[j]) {
                codes_[j] = null_code(j);
                continue;
            }
            Datum v = values[j];
            codes_[j] = value_code(j, coded_[j].reader.read(v, scratch_[j].data(), row_context_),
                                   [&] { return value_text_of(&coded_[j].text, v); });
        }
    }
    uint32_t sensitive_id(std::optional<std::string_view> text) {
        const std::size_t known = out_.sensitive.text.size();
        const uint32_t id = out_.sensitive.id(text);
        if (text && out_.sensitive.text.size() > known) out_.coded_bytes += kCodedValueBytes + 2 * text->size();
        return id;
    }
    // A row, or a class of `rows` rows read elsewhere (a shard, a worker), for the progress
    // report; the memory is checked every 4,096 rows or classes.
    void next_row(int64_t rows = 1) {
        rows_ += static_cast<uint64_t>(rows);
        if ((++calls_ & 4095) != 0) return;
        check_memory();
        if (progress_) progress_->rows(static_cast<int64_t>(rows_));
    }
    // Rows of classes a shard sent: every class's rows add up to them, so bounding them
    // bounds each class's sum in the builder (a shard's server may be anyone's).
    void count_shard_rows(int64_t rows) {
        if (__builtin_add_overflow(shard_rows_, rows, &shard_rows_))
            fail(ErrorKind::ProgramLimit, "the shards' classes count more than 2^63 - 1 rows");
    }
    // What is held against the bound (the classes, the values coded, what the caller holds),
    // and a chance to cancel.
    void check_memory() {
        pg_call([&] {
            MemoryContextReset(row_context_);
            CHECK_FOR_INTERRUPTS();
        });
        request_.memory.check(builder_.bytes() + out_.coded_bytes + (held_ ? held_() : 0), what_, request_.hint);
    }

    const CodedClassesRequest& request_;
    CodedClasses& out_;
    const std::size_t width_;
    const bool sensitive_;
    MemoryContext row_context_;
    RowsReadProgress* progress_;  // null: not followed
    std::vector<CodedColumn> coded_;
    std::vector<uint32_t> codes_;
    std::vector<std::array<char, sizeof(Datum)>> scratch_;
    ValueText sensitive_text_{};
    BaseClassBuilder builder_;
    std::vector<uint32_t> sensitive_of_;  // the parallel read's value index -> sensitive id
    bool handed_over_ = false;
    std::function<std::size_t()> held_;
    uint64_t rows_ = 0, calls_ = 0;
    int64_t shard_rows_ = 0;  // the rows of the classes shards sent (tallies or hist() rows)
    const std::string what_;
};

// Over shards: each shard tallies its level-0 classes in one value (class_tally: its
// classes with their sensitive counts, its values by text), and each tally's classes are
// coded here by their codes into its values (ClassCoder::on_tally). A shard's tally costs
// a pass over its rows in C++; a GROUP BY with hist() per class costs several times more
// there, so it is the fallback only: for a shard whose tally passes its
// privrisk.audit_memory_limit (54000), where that GROUP BY spills to disk instead. Returns
// whether the tallies were read.
bool read_shard_tallies(const CodedClassesRequest& request, const std::vector<Shard>& shards,
                        const std::vector<SourceColumn>& keys, const std::optional<SourceColumn>& sensitive,
                        ClassCoder& coder) {
    const std::string sql = class_tally_query(shards, keys, sensitive);
    MemoryContext tallies = pg_call(
        [] { return AllocSetContextCreate(CurrentMemoryContext, "privrisk shard tallies", ALLOCSET_DEFAULT_SIZES); });
    bool read = false;
    try {
        // (a resource without a limit is unbounded: none left is one byte)
        PgMemoryResource bounded(tallies, std::max<std::size_t>(request.memory.left(), 1));
        std::pmr::vector<std::pmr::string> received(&bounded);  // each shard's tally, all before any is coded
        if (in_subtransaction(ERRCODE_PROGRAM_LIMIT_EXCEEDED, [&] {
                stream_rows(sql, {}, [&](const Datum* values, const bool* nulls) {
                    if (!nulls[0]) received.emplace_back(text_view(values[0]));
                });
            })) {
            // Until they are freed, the tallies count with the classes coded from them.
            coder.hold([&] {
                return static_cast<std::size_t>(pg_call([&] { return MemoryContextMemAllocated(tallies, true); }));
            });
            for (std::pmr::string& tally : received) {  // each freed once coded
                coder.on_tally(TallyReader(tally, request.width, &bounded), &bounded);
                std::pmr::string(&bounded).swap(tally);
            }
            coder.hold(nullptr);
            read = true;
        }
    } catch (const MemoryLimitExceeded& e) {  // the tallies, past the bound
        pg_call([&] { MemoryContextDelete(tallies); });
        request.memory.check(e.need, request.what + ": the shards' class tallies", request.hint);
        fail(ErrorKind::Internal, "the shards' class tallies passed a bound they fit");
    } catch (...) {
        pg_call([&] { MemoryContextDelete(tallies); });
        throw;
    }
    pg_call([&] { MemoryContextDelete(tallies); });
    return read;
}

}  // namespace

CodedClasses read_coded_classes(const SourceRelation& source, const CodedClassesRequest& request) {
    const std::vector<SourceColumn>& columns = request.columns;
    const std::size_t width = request.width;
    const bool sensitive = columns.size() > width;
    CodedClasses out;
    MemoryContext row_context = pg_call([] {
        return AllocSetContextCreate(CurrentMemoryContext, "privrisk coded classes rows", ALLOCSET_DEFAULT_SIZES);
    });
    std::optional<RowsReadProgress> progress;
    if (request.activity) progress.emplace(request.activity, source.relid);
    ClassCoder coder(request, out, row_context, progress ? &*progress : nullptr);
    std::vector<AttrNumber> key_attnums;
    for (std::size_t j = 0; j < width; ++j) key_attnums.push_back(columns[j].attnum);
    // Workers key a sensitive column by its canonical text, as the serial read does.
    const ReadChoice choice = choose_read(source.relid, columns, width, {request.shards, true, true, false});
    const std::vector<Shard>& shards = choice.shards;
    const int workers = choice.workers;
    Spi spi;
    // Past the bound the read stops with an error in C++, which audit() catches to spill.
    // In parallel mode no subtransaction rolls this connection back then: it is closed here.
    try {
        // Before any class is handed over, out of shared memory or past the bound in a
        // process (its row buffers): the serial read instead.
        bool parallel =
            workers > 0 &&
            in_subtransaction(
                [&](int code) { return !coder.handed_over() && parallel_read_may_fall_back(code); },
                [&] {
                    out.workers = parallel_keyed_classes(
                        source.relid, key_attnums, sensitive ? columns[width].attnum : 0, workers,
                        request.memory.left(),
                        [&](const std::vector<std::optional<std::string>>& values) { coder.on_values(values); },
                        [&](std::string_view key, const ContingencyTable::Pair* pairs, std::size_t n) {
                            coder.on_keyed_class(key, pairs, n);
                        });
                });
        if (!parallel && shards.empty()) {
            read_source_rows(source, choice.rows(), columns,
                             [&](const Datum* values, const bool* nulls) { coder.on_row(values, nulls); });
        } else if (!parallel) {
            const std::vector<SourceColumn> keys(columns.begin(), columns.begin() + width);
            std::optional<SourceColumn> s;
            if (sensitive) s = columns[width];
            if (!read_shard_tallies(request, shards, keys, s, coder)) {
                pg_call([] {
                    ereport(NOTICE, (errmsg("a shard's class tally passed its privrisk.audit_memory_limit; reading "
                                            "each shard's classes with a spilling GROUP BY instead")));
                });
                stream_rows(shard_classes_query(shards, keys, s), {},
                            [&](const Datum* values, const bool* nulls) { coder.on_class(values, nulls); });
            }
        }
    } catch (const PgError&) {
        throw;  // the (sub)transaction's abort closes the connection
    } catch (...) {
        spi.finish();
        pg_call([&] { MemoryContextDelete(row_context); });
        throw;
    }
    spi.finish();
    if (progress) progress->finish();
    pg_call([&] { MemoryContextDelete(row_context); });
    out.classes = coder.finish();
    return out;
}

}  // namespace privrisk::pg
