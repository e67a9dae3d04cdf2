// The binary form of privrisk.hist (hist_recv) and every state that carries
// histograms: validated, and what validates prints and reads back unchanged.
#include "classes/class_histogram.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    std::string_view bytes = bytes_of(data, size);
    refused_or_read([&] {
        privrisk::validate_histogram(bytes, true);
        FUZZ_REQUIRE(privrisk::histogram_from_text(privrisk::histogram_to_text(bytes)) == bytes);
    });
    return 0;
}
