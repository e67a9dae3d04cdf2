#include <gtest/gtest.h>

#include <random>

#include "common/error.hpp"
#include "hierarchy/pinned_hierarchy.hpp"

using privrisk::Error;
using privrisk::PinnedHierarchy;

TEST(PinnedHierarchy, ParsesNameDigestAndServer) {
    PinnedHierarchy r = PinnedHierarchy::parse("age@0123456789abcdef");
    EXPECT_EQ(r.name, "age");
    EXPECT_EQ(r.digest, "0123456789abcdef");
    EXPECT_EQ(r.server, "");
    PinnedHierarchy s = PinnedHierarchy::parse("zip\\@us@ffffffffffffffff@shard\\\\2");
    EXPECT_EQ(s.name, "zip@us");
    EXPECT_EQ(s.server, "shard\\2");
    EXPECT_EQ(s.text(), "zip\\@us@ffffffffffffffff@shard\\\\2");
}

TEST(PinnedHierarchy, RefusesMalformedText) {
    for (const char* bad : {"age", "age@0123", "age@0123456789ABCDEF", "@0123456789abcdef",
                            "age@0123456789abcdef@", "a@0123456789abcdef@s@t", "a\\x@0123456789abcdef", "a\\"})
        EXPECT_THROW(PinnedHierarchy::parse(bad), Error) << bad;
    EXPECT_THROW(PinnedHierarchy::parse(std::string(201, 'n') + "@0123456789abcdef"), Error);
    EXPECT_THROW(PinnedHierarchy::parse("n@0123456789abcdef@" + std::string(64, 's')), Error);
}

// Any name and server survive text() and parse(), escapes included.
TEST(PinnedHierarchy, TextRoundTripsRandomNames) {
    std::mt19937 rng(7);
    const std::string alphabet = "ab@\\ \xc3\xa9";
    auto word = [&](std::size_t max) {
        std::string w;
        std::size_t n = 1 + rng() % max;
        for (std::size_t i = 0; i < n; ++i) w += alphabet[rng() % alphabet.size()];
        return w;
    };
    for (int i = 0; i < 2000; ++i) {
        PinnedHierarchy r{word(30), "00ff00ff00ff00ff", i % 2 ? word(20) : ""};
        PinnedHierarchy back = PinnedHierarchy::parse(r.text());
        EXPECT_EQ(back.name, r.name);
        EXPECT_EQ(back.server, r.server);
        EXPECT_EQ(back.digest, r.digest);
    }
}
