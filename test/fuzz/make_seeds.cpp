// Writes the seed corpora of the binary fuzz targets (scripts/fuzz): valid
// byte forms made by the same code that makes them in a server, so the fuzzer
// starts from inputs that read through (test/fuzz/corpus/).
#include <fstream>
#include <memory_resource>
#include <string>

#include "classes/class_aggregator.hpp"
#include "classes/class_histogram.hpp"
#include "classes/class_set.hpp"
#include "classes/tuple_tally.hpp"
#include "information/value_counts.hpp"

namespace {

void write(const std::string& dir, const std::string& name, const std::string& bytes) {
    std::ofstream(dir + "/" + name, std::ios::binary) << bytes;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 2) return 2;
    const std::string out = argv[1];
    std::pmr::memory_resource* mr = std::pmr::new_delete_resource();
    std::string h1 = privrisk::histogram_from_text(R"([["flu", 3], ["cold", 1], [null, 2]])");
    std::string h2 = privrisk::histogram_from_text(R"([["diabetes", 7]])");
    write(out + "/hist_binary", "two_values", h1);
    write(out + "/hist_binary", "one_value", h2);
    privrisk::ClassSet set(mr);
    set.add(h1, 2);
    set.add(h2);
    write(out + "/states", "class_set", std::string(1, '\x00') + set.serialize());
    privrisk::ValueCounts pairs(mr, true);
    pairs.add(privrisk::Fingerprint{1, 2}, privrisk::Fingerprint{3, 4}, 5);
    write(out + "/states", "value_counts_pairs", std::string(1, '\x05') + pairs.serialize());
    privrisk::TupleTally tally(mr, 2);
    bool added;
    uint32_t codes[2] = {tally.code(0, "a", &added), 0};
    tally.set_text(0, "a");
    codes[1] = tally.code(1, "b", &added);
    tally.set_text(1, "b");
    tally.add(codes, 3);
    write(out + "/states", "tuple_tally_2", std::string(1, '\x06') + tally.serialize());
    privrisk::ClassAggregator agg(mr, 2, 64);
    privrisk::Value qi[2] = {std::string_view("30"), std::string_view("479**")};
    agg.add(qi, std::string_view("flu"));
    agg.add(qi, privrisk::Value());
    write(out + "/states", "class_tally_2", std::string(1, '\x07') + agg.serialize());
    write(out + "/states", "class_tally_value_2", std::string(1, '\x17') + agg.serialize_tally());
    return 0;
}
