// The text form of privrisk.hist (hist_in): parsed, and what parses is a valid
// encoding whose text reads back to the same encoding.
#include "classes/class_histogram.hpp"
#include "fuzz_support.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, std::size_t size) {
    refused_or_read([&] {
        std::string encoded = privrisk::histogram_from_text(bytes_of(data, size));
        privrisk::validate_histogram(encoded, true);
        FUZZ_REQUIRE(privrisk::histogram_from_text(privrisk::histogram_to_text(encoded)) == encoded);
    });
    return 0;
}
