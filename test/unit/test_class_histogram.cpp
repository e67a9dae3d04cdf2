#include <gtest/gtest.h>

#include <functional>
#include <map>
#include <random>

#include "classes/class_histogram.hpp"
#include "common/error.hpp"
#include "test_support.hpp"

using namespace privrisk;
using privrisk_test::error_of;

TEST(Histogram, BuilderCountsAndEncodesCanonically) {
    auto* mr = std::pmr::new_delete_resource();
    HistogramBuilder b;
    for (const char* v : {"Sales", "Tech-support", "Sales", "Adm-clerical"}) b.add(v, 1, mr);
    b.add_bottom(1);
    std::string enc = b.encode();
    validate_histogram(enc, true);
    EXPECT_EQ(histogram_to_text(enc), R"([["Adm-clerical", 1], ["Sales", 2], ["Tech-support", 1], [null, 1]])");
    HistogramView h(enc);
    EXPECT_EQ(h.size(), 5);
    EXPECT_EQ(h.distinct(), 3u);
    EXPECT_EQ(h.bottom(), 1);
    b.release(mr);
}

TEST(Histogram, TextRoundTripAndEscapes) {
    std::string text = R"([["a\"b", 2], ["tab\there", 1], ["\u00fc\ud83d\ude00", 3], [null, 4]])";
    std::string enc = histogram_from_text(text);
    EXPECT_EQ(histogram_to_text(enc), R"([["a\"b", 2], ["tab\there", 1], ["ü😀", 3], [null, 4]])");
    EXPECT_EQ(histogram_from_text(histogram_to_text(enc)), enc);
    // Order of input pairs does not matter.
    EXPECT_EQ(histogram_from_text(R"([[null, 1], ["b", 1], ["a", 2]])"), histogram_from_text(R"([["a", 2], ["b", 1], [null, 1]])"));
}

TEST(Histogram, HostileTextIsRefused) {
    for (const char* bad : {"", "[", "[]", "[[\"a\"]]", "[[\"a\", 0]]", "[[\"a\", -1]]", "[[\"a\", 1], [\"a\", 2]]",
                            "[[null, 1], [null, 1]]", "[[\"a\", 1]] x", "[[\"a\", 99999999999999999999]]",
                            "[[\"a\", 4611686018427387904]]", "[[\"a\", 4611686018427387903], [\"b\", 1]]",
                            "[[\"\\ud800\", 1]]", "[[\"\\u0000\", 1]]", "[[\"a\\q\", 1]]", "[[\"a\n\", 1]]", "{\"a\": 1}",
                            "[[1, 1]]", "[[\"a\", 1.5]]"}) {
        EXPECT_NE(error_of([&] { histogram_from_text(bad); }).find("invalid hist"), std::string::npos) << bad;
    }
}

TEST(Histogram, HostileBinaryIsRefused) {
    std::string good = histogram_from_text(R"([["a", 1], ["b", 2]])");
    validate_histogram(good, true);
    auto broken = [&](std::size_t at, char byte) {
        std::string s = good;
        s[at] = byte;
        return error_of([&] { validate_histogram(s, true); });
    };
    EXPECT_NE(broken(0, 2).find("unknown version"), std::string::npos);
    EXPECT_NE(broken(7, 9).find("runs past the end"), std::string::npos);   // nvalues 9
    EXPECT_NE(broken(16 + 11, 50).find("runs past the end"), std::string::npos);  // first length 50
    EXPECT_NE(broken(16 + 7, 0).find("count 0"), std::string::npos);
    EXPECT_NE(broken(16 + 12, 'c').find("strictly increasing"), std::string::npos);  // "c" before "b"
    EXPECT_NE(broken(16 + 12, '\xff').find("UTF-8"), std::string::npos);
    EXPECT_NE(error_of([&] { validate_histogram(good.substr(0, 10), true); }).find("header"), std::string::npos);
    EXPECT_NE(error_of([&] { validate_histogram(good + "x", true); }).find("trailing"), std::string::npos);
    // Random corruption never crashes: it is either valid or refused.
    std::mt19937 rng(3);
    for (int i = 0; i < 20000; ++i) {
        std::string s = good;
        int flips = 1 + rng() % 3;
        for (int f = 0; f < flips; ++f) s[rng() % s.size()] = static_cast<char>(rng());
        if (rng() % 4 == 0) s.resize(rng() % s.size());
        try {
            validate_histogram(s, true);
            HistogramView h(s);
            EXPECT_GE(h.size(), 1);
        } catch (const Error&) {
        }
    }
}

TEST(Histogram, BuilderSwitchesToHashingForManyValues) {
    // Counts every allocation, to check release() returns all of it.
    struct Counting : std::pmr::memory_resource {
        long live = 0;
        void* do_allocate(std::size_t n, std::size_t a) override { ++live; return std::pmr::new_delete_resource()->allocate(n, a); }
        void do_deallocate(void* p, std::size_t n, std::size_t a) override { --live; std::pmr::new_delete_resource()->deallocate(p, n, a); }
        bool do_is_equal(const memory_resource& o) const noexcept override { return this == &o; }
    } mr;
    HistogramBuilder a, b;
    std::map<std::string, int64_t> truth;
    std::mt19937 rng(11);
    for (int i = 0; i < 5000; ++i) {
        std::string v = "v" + std::to_string(rng() % 300);
        ((i % 2) ? a : b).add(v, 1, &mr);
        ++truth[v];
    }
    a.merge(b, &mr);
    std::string enc = a.encode();
    validate_histogram(enc, true);
    std::map<std::string, int64_t> got;
    HistogramView(enc).for_each([&](std::string_view v, int64_t c) { got[std::string(v)] = c; });
    EXPECT_EQ(got, truth);
    HistogramBuilder c;
    c.add_encoded(enc, &mr);
    EXPECT_EQ(c.encode(), enc);
    a.release(&mr);
    b.release(&mr);
    c.release(&mr);
    EXPECT_EQ(mr.live, 0);
}
