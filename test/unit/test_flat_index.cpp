// FlatIndex: ids are dense and stable across growth; find() sees exactly what was added.
#include <gtest/gtest.h>

#include <string>
#include <vector>

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

// The batched form (hash, prefetch, then look up) gives the ids the plain form gives,
// also when the table grows between a batch's prefetches and its lookups.
TEST(FlatIndex, HashedLookupsAgreeWithPlainOnes) {
    FlatIndex plain(std::pmr::new_delete_resource());
    FlatIndex batched(std::pmr::new_delete_resource());
    std::vector<std::string> batch;
    auto flush = [&] {
        std::vector<uint64_t> hashes;
        for (const std::string& k : batch) {
            hashes.push_back(FlatIndex::hash(k));
            batched.prefetch(hashes.back());
        }
        for (std::size_t b = 0; b < batch.size(); ++b) {
            bool added_plain = false, added_batched = false;
            ASSERT_EQ(batched.find_or_add_hashed(batch[b], hashes[b], &added_batched),
                      plain.find_or_add(batch[b], &added_plain));
            ASSERT_EQ(added_batched, added_plain);
        }
        batch.clear();
    };
    for (int i = 0; i < 20000; ++i) {  // repeats and new keys, short and long
        batch.push_back(std::to_string((i * 7919) % 6000) + (i % 5 ? "" : " and more than eight bytes"));
        if (batch.size() == 16) flush();
    }
    flush();
    EXPECT_EQ(batched.size(), plain.size());
    for (int v = 0; v < 6000; ++v) {
        const std::string k = std::to_string(v);
        EXPECT_EQ(batched.find_hashed(k, FlatIndex::hash(k)), plain.find(k)) << k;
    }
    EXPECT_EQ(batched.find_hashed("absent", FlatIndex::hash("absent")), FlatIndex::kAbsent);
}
