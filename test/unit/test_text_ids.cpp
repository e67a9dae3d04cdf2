// TextIds: one id per distinct text in the order first met, NULL an id of its
// own (not the text "" nor "NULL"), the texts by id; against a map on random input.
#include <gtest/gtest.h>

#include <map>
#include <random>

#include "common/text_ids.hpp"

using namespace privrisk;

TEST(TextIds, OneIdPerTextAndNullApart) {
    TextIds ids;
    EXPECT_EQ(ids.id(std::string_view("a")), 0u);
    EXPECT_EQ(ids.id(std::nullopt), 1u);
    EXPECT_EQ(ids.id(std::string_view("")), 2u);
    EXPECT_EQ(ids.id(std::string_view("NULL")), 3u);
    EXPECT_EQ(ids.id(std::nullopt), 1u);
    EXPECT_EQ(ids.id(std::string_view("a")), 0u);
    ASSERT_EQ(ids.text.size(), 4u);
    EXPECT_FALSE(ids.text[1].has_value());
    EXPECT_EQ(*ids.text[2], "");

    std::mt19937 gen(3);
    TextIds random_ids;
    std::map<std::optional<std::string>, uint32_t> reference;
    for (int i = 0; i < 20000; ++i) {
        std::optional<std::string> v;
        if (gen() % 50) v = std::to_string(gen() % 3000);
        auto [it, added] = reference.emplace(v, static_cast<uint32_t>(reference.size()));
        uint32_t got = random_ids.id(v ? std::optional<std::string_view>(*v) : std::nullopt);
        ASSERT_EQ(got, it->second) << i;
        ASSERT_EQ(random_ids.text[got], v);
        (void)added;
    }
    EXPECT_EQ(random_ids.text.size(), reference.size());
}
