// WordMap: keys of up to 7 bytes, any bytes, each found exactly under its own
// word (std::map as the reference), across growth.
#include <gtest/gtest.h>

#include <map>
#include <random>
#include <string>

#include "common/word_map.hpp"

using privrisk::WordMap;

namespace {
using Map = WordMap<int>;
uint64_t word(const std::string& key) { return Map::word(key); }
}  // namespace

TEST(WordMap, KeysThatDifferOnlyByZeroBytesOrLengthStayApart) {
    Map map(std::pmr::new_delete_resource());
    int values[5];
    std::string keys[] = {"", std::string(1, '\0'), std::string(2, '\0'), "a", std::string("a\0", 2)};
    for (int i = 0; i < 5; ++i) map.put(word(keys[i]), &values[i]);
    for (int i = 0; i < 5; ++i) EXPECT_EQ(map.find(word(keys[i])), &values[i]) << i;
    EXPECT_EQ(map.size(), 5u);
    EXPECT_EQ(map.find(word("b")), nullptr);
}

TEST(WordMap, RandomKeysMatchAStdMapAcrossGrowth) {
    std::mt19937 random(20261123);
    Map map(std::pmr::new_delete_resource());
    std::map<std::string, int*> reference;
    static int targets[4096];
    for (int i = 0; i < 20000; ++i) {
        // Short keys over a small alphabet (zero bytes included): many repeats and near misses.
        std::string key(random() % (Map::kMaxKey + 1), '\0');
        for (char& c : key) c = "\0ab*9"[random() % 5];
        int* value = &targets[random() % 4096];
        map.put(word(key), value);  // replaces what was there
        reference[key] = value;
        if (i % 97 == 0) {
            for (const auto& [k, v] : reference) ASSERT_EQ(map.find(word(k)), v);
        }
    }
    EXPECT_EQ(map.size(), reference.size());
    for (const auto& [k, v] : reference) ASSERT_EQ(map.find(word(k)), v);
    for (int i = 0; i < 2000; ++i) {  // keys never put (a 'z' is not in the alphabet) are absent
        std::string key = "z" + std::to_string(random() % 1000000);
        ASSERT_EQ(map.find(word(key)), nullptr) << key;
    }
}
