// FlatIndex: ids are dense and stable across growth; find() sees exactly what was added.
#include <gtest/gtest.h>

#include <string>

#include "common/flat_index.hpp"

using privrisk::FlatIndex;

TEST(FlatIndex, FindSeesExactlyTheAddedKeys) {
    FlatIndex index(std::pmr::new_delete_resource());
    EXPECT_EQ(index.find("x"), FlatIndex::kAbsent);
    for (int i = 0; i < 5000; ++i) {  // grows the table several times; keys short and long
        std::string key = (i % 3 ? "k" : "a long key past eight bytes ") + std::to_string(i);
        bool added = false;
        ASSERT_EQ(index.find_or_add(key, &added), static_cast<uint32_t>(i));
        ASSERT_TRUE(added);
    }
    for (int i = 0; i < 5000; ++i) {
        std::string key = (i % 3 ? "k" : "a long key past eight bytes ") + std::to_string(i);
        ASSERT_EQ(index.find(key), static_cast<uint32_t>(i)) << key;
        bool added = true;
        ASSERT_EQ(index.find_or_add(key, &added), static_cast<uint32_t>(i));
        ASSERT_FALSE(added);
        std::string other = (i % 3 ? "a long key past eight bytes " : "k") + std::to_string(i);
        ASSERT_EQ(index.find(other + "!"), FlatIndex::kAbsent);
    }
    EXPECT_EQ(index.find(""), FlatIndex::kAbsent);
    EXPECT_EQ(index.size(), 5000u);
}

TEST(FlatIndex, SmallWordIsTheBytesLittleEndianZeroPadded) {
    const char bytes[] = "\x01\x82\x03\xf4\x05\x06\x07\xf8";
    for (std::size_t n = 0; n <= 8; ++n) {
        uint64_t expected = 0;
        for (std::size_t b = 0; b < n; ++b) expected |= uint64_t(static_cast<unsigned char>(bytes[b])) << (8 * b);
        EXPECT_EQ(FlatIndex::small_word(bytes, n), expected) << n;
    }
}
