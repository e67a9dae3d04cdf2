#include "dp/coded_scan.hpp"

#include <array>

#include "classes/hist_type.hpp"
#include "classes/class_histogram.hpp"
#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "common/row_stream.hpp"
#include "common/spi.hpp"
#include "common/value_text.hpp"

namespace privrisk::pg {
namespace {

// Codes the values of one row, column by column: a value's bytes are looked
// up, and a new one's text goes to on_value once.
class RowCoder {
public:
    RowCoder(const std::vector<Oid>& types, CodedScan& scan)
        : scan_(scan), columns_(types.size()), codes_(types.size()), scratch_(types.size()) {
        for (std::size_t j = 0; j < types.size(); ++j) {
            columns_[j].reader = ClassKeyReader::for_type(types[j]);
            Oid type = types[j];
            pg_call([&] { init_value_text(&columns_[j].text, type, CurrentMemoryContext); });
        }
        row_context_ = pg_call([] {
            return AllocSetContextCreate(CurrentMemoryContext, "privrisk coded scan rows", ALLOCSET_DEFAULT_SIZES);
        });
    }

    const uint32_t* code(const Datum* values, const bool* nulls) {
        for (std::size_t j = 0; j < columns_.size(); ++j) {
            Column& c = columns_[j];
            if (nulls[j]) {
                if (!c.null_code) c.null_code = scan_.on_value(j, std::nullopt);
                codes_[j] = *c.null_code;
                continue;
            }
            Datum v = values[j];
            bool added;
            uint32_t index = c.seen.find_or_add(c.reader.read(v, scratch_[j].data(), row_context_), &added);
            if (added) {
                std::string_view text = value_text_of(&c.text, v);
                c.code_of.push_back(scan_.on_value(j, text));
            }
            codes_[j] = c.code_of[index];
        }
        return codes_.data();
    }

    // After each row: every 4,096 rows, frees the row memory and lets a cancel in.
    void next() {
        if ((++rows_ & 4095) == 0)
            pg_call([&] {
                MemoryContextReset(row_context_);
                CHECK_FOR_INTERRUPTS();
            });
    }

    void finish() {
        pg_call([&] { MemoryContextDelete(row_context_); });
    }

private:
    struct Column {
        ClassKeyReader reader;
        ValueText text;
        FlatIndex seen{std::pmr::new_delete_resource()};
        std::vector<uint32_t> code_of;
        std::optional<uint32_t> null_code;
    };
    CodedScan& scan_;
    std::vector<Column> columns_;
    std::vector<uint32_t> codes_;
    std::vector<std::array<char, sizeof(Datum)>> scratch_;
    MemoryContext row_context_;
    int64_t rows_ = 0;
};

}  // namespace

int64_t run_coded_scan(const SourceRelation& source, CodedScan& scan, const SourceRows& how) {
    std::vector<Oid> types;
    for (const SourceColumn& c : scan.columns) types.push_back(c.type);
    RowCoder coder(types, scan);
    int64_t rows = 0;
    Spi spi;
    read_source_rows(source, how, scan.columns, [&](const Datum* values, const bool* nulls) {
        scan.on_rows(coder.code(values, nulls), 1);
        ++rows;
        coder.next();
    });
    spi.finish();
    coder.finish();
    return rows;
}

int64_t run_coded_classes(const std::string& class_sql, const std::vector<Oid>& key_types, CodedScan& scan) {
    RowCoder coder(key_types, scan);
    const std::size_t width = key_types.size();
    int64_t rows = 0;
    Spi spi;
    stream_rows(class_sql, {}, [&](const Datum* values, const bool* nulls) {
        const int64_t n = HistogramView(hist_bytes(values[width])).size();
        scan.on_rows(coder.code(values, nulls), n);
        rows += n;
        coder.next();
    });
    spi.finish();
    coder.finish();
    return rows;
}

}  // namespace privrisk::pg
