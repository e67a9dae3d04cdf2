#include "common/coded_scan.hpp"

#include <array>

#include "common/error.hpp"
#include "common/flat_index.hpp"
#include "common/row_stream.hpp"
#include "common/spi.hpp"
#include "common/value_text.hpp"

namespace privrisk::pg {

int64_t run_coded_scan(const SourceRelation& source, CodedScan& scan) {
    const std::size_t width = scan.columns.size();
    struct Column {
        ClassKeyReader reader;
        ValueText text;
        FlatIndex seen{std::pmr::new_delete_resource()};
        std::vector<uint32_t> code_of;
        std::optional<uint32_t> null_code;
    };
    std::vector<Column> columns(width);
    for (std::size_t j = 0; j < width; ++j) {
        columns[j].reader = ClassKeyReader::for_type(scan.columns[j].type);
        Oid type = scan.columns[j].type;
        pg_call([&] { init_value_text(&columns[j].text, type, CurrentMemoryContext); });
    }
    MemoryContext row_context = pg_call([] {
        return AllocSetContextCreate(CurrentMemoryContext, "privrisk coded scan rows", ALLOCSET_DEFAULT_SIZES);
    });
    const SourceRows how = source_rows(source, scan.with_identity);
    const int first = how.first();  // the SQL query leads with tableoid, ctid
    std::vector<uint32_t> codes(width);
    std::vector<std::array<char, sizeof(Datum)>> scratch(width);
    ItemPointerData tid;
    int64_t rows = 0;
    auto on_values = [&](const Datum* values, const bool* nulls) {
        for (std::size_t j = 0; j < width; ++j) {
            Column& c = columns[j];
            if (nulls[first + j]) {
                if (!c.null_code) c.null_code = scan.on_value(j, std::nullopt);
                codes[j] = *c.null_code;
                continue;
            }
            Datum v = values[first + j];
            bool added;
            uint32_t index = c.seen.find_or_add(c.reader.read(v, scratch[j].data(), row_context), &added);
            if (added) {
                std::string_view text = pg_call([&] { return value_text(&c.text, v); });
                c.code_of.push_back(scan.on_value(j, text));
            }
            codes[j] = c.code_of[index];
        }
        if (!scan.with_identity)
            scan.on_row(codes.data(), InvalidOid, nullptr);
        else if (how.from_heap)
            scan.on_row(codes.data(), scan.relid, &tid);
        else
            scan.on_row(codes.data(), DatumGetObjectId(values[0]), reinterpret_cast<ItemPointer>(DatumGetPointer(values[1])));
        if ((++rows & 4095) == 0) pg_call([&] {
                MemoryContextReset(row_context);
                CHECK_FOR_INTERRUPTS();
            });
    };
    Spi spi;
    read_source_rows(source, how, scan.columns, on_values, &tid);
    spi.finish();
    pg_call([&] { MemoryContextDelete(row_context); });
    return rows;
}

}  // namespace privrisk::pg
