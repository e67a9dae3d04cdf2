#include <gtest/gtest.h>

#include "hierarchy/csv.hpp"
#include "common/error.hpp"

using namespace privrisk;

TEST(Csv, SplitsFieldsAndSkipsBlankLines) {
    auto recs = parse_csv("a;b;*\r\n\nc;d;*\n", ";");
    ASSERT_EQ(recs.size(), 2u);
    EXPECT_EQ(recs[0].line, 1);
    EXPECT_EQ(recs[1].line, 3);
    EXPECT_EQ(recs[1].fields, (std::vector<std::string>{"c", "d", "*"}));
}

TEST(Csv, QuotedFieldsMayHoldDelimitersQuotesAndNewlines) {
    auto recs = parse_csv("\"a;1\";\"say \"\"hi\"\"\";*\n\"x\ny\";z;*\nlast;q;*", ";");
    ASSERT_EQ(recs.size(), 3u);
    EXPECT_EQ(recs[0].fields[0], "a;1");
    EXPECT_EQ(recs[0].fields[1], "say \"hi\"");
    EXPECT_EQ(recs[1].fields[0], "x\ny");
    EXPECT_EQ(recs[2].line, 4);  // the quoted newline counted as a line
}

TEST(Csv, ErrorsNameTheLine) {
    try {
        parse_csv("a;*\nb;\"open\n", ";");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "line 2: a quoted field is not terminated");
    }
    try {
        parse_csv("a;*\nb\xff;*\n", ";");
        FAIL();
    } catch (const Error& e) {
        EXPECT_STREQ(e.what(), "line 2: invalid UTF-8");
    }
    std::string huge = "ok;*\n" + std::string(10 * 1024 * 1024, 'x') + ";*\n";
    try {
        parse_csv(huge, ";");
        FAIL();
    } catch (const Error& e) {
        EXPECT_EQ(std::string(e.what()).rfind("line 2: field 1 is 8193 bytes long", 0), 0u) << e.what();
    }
}

TEST(Csv, RejectsBadDelimiters) {
    EXPECT_THROW(parse_csv("a", ";;"), Error);
    EXPECT_THROW(parse_csv("a", ""), Error);
    EXPECT_THROW(parse_csv("a", "\""), Error);
    EXPECT_EQ(parse_csv("a,b", ",")[0].fields.size(), 2u);
}

TEST(Utf8, RejectsOverlongsSurrogatesAndTruncation) {
    EXPECT_TRUE(valid_utf8("Zürich \xe2\x82\xac \xf0\x9f\x98\x80"));
    EXPECT_FALSE(valid_utf8("\xc0\xaf"));          // overlong '/'
    EXPECT_FALSE(valid_utf8("\xed\xa0\x80"));      // surrogate
    EXPECT_FALSE(valid_utf8("\xe2\x82"));          // truncated
    EXPECT_FALSE(valid_utf8("\xf4\x90\x80\x80"));  // above U+10FFFF
}

TEST(Quoted, CutsLongValuesOnCharacterBoundaries) {
    EXPECT_EQ(quote_value("a\nb"), "\"a\\x0ab\"");
    std::string s(59, 'a');
    s += "\xc3\xbc\xc3\xbc";  // the cut at 60 bytes falls inside 'ü'
    EXPECT_EQ(quote_value(s), "\"" + std::string(59, 'a') + "...\" (63 bytes)");
}
