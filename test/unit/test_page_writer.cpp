// The report's page writer (src/core/report/page_writer.hpp): every text escaped
// by one path, the data island safe inside its script element, placeholders
// filled once.
#include <gtest/gtest.h>

#include "common/error.hpp"
#include "report/json_reader.hpp"
#include "report/page_writer.hpp"

using namespace privrisk;

TEST(PageWriter, TextIsEscapedForTextAndAttributes) {
    EXPECT_EQ(Html::text("<a href=\"x\" title='y'>&</a>").str(),
              "&lt;a href=&quot;x&quot; title=&#39;y&#39;&gt;&amp;&lt;&#47;a&gt;");
    EXPECT_EQ((Html::markup("<p>") + Html::text("</p><script>") + Html::markup("</p>")).str(),
              "<p>&lt;&#47;p&gt;&lt;script&gt;</p>");
}

TEST(PageWriter, ScriptJsonCannotEndItsElement) {
    std::string in = "{\"a\": \"</script><!--<script>&\xE2\x80\xA8\xE2\x80\xA9\"}";
    std::string out = script_json(in);
    EXPECT_EQ(out, "{\"a\": \"\\u003c/script\\u003e\\u003c!--\\u003cscript\\u003e\\u0026\\u2028\\u2029\"}");
    // It reads back as the same value.
    EXPECT_EQ(parse_json(out).find("a")->text, parse_json(in).find("a")->text);
    EXPECT_THROW(script_json("{\"a\": 1} </script>"), Error);  // not one JSON document
}

TEST(PageWriter, ScriptCodeRefusesWhatEndsTheElement) {
    EXPECT_EQ(script_code("x.js", "var a = 1 < 2;"), "var a = 1 < 2;");
    EXPECT_THROW(script_code("x.js", "s = '</SCRIPT>'"), Error);
    EXPECT_THROW(script_code("x.js", "s = '<!--'"), Error);
}

TEST(PageWriter, PlaceholdersAreFilledOnceAndTextCannotNameOne) {
    ReportPage page;
    page.title = "/*@DATA@*/";
    page.data_json = "{\"x\": \"/*@TITLE@*/\"}";
    std::string html = render_page("<title>/*@TITLE@*/</title><script>/*@DATA@*/</script>", page);
    EXPECT_EQ(html, "<title>&#47;*@DATA@*&#47;</title><script>{\"x\": \"/*@TITLE@*/\"}</script>");
    EXPECT_THROW(render_page("/*@NOPE@*/", page), Error);
}

TEST(PageWriter, VerdictTablesAreBuiltFromTextOnly) {
    ReportPage page;
    page.data_json = "{}";
    read_page_model(parse_json(R"({"title": "t", "version": "v", "meta": "m", "profile_line": "p",
        "verdicts": [{"heading": "<h>", "publishable": false, "summary": "s", "checks": [
            {"passed": false, "measure": "k\"><x", "value": "1", "shown_value": "1.0000", "comparison": ">=",
             "threshold": "5", "margin": "-4.0000", "note": "<b>"}]}]})"),
                    page);
    std::string html = render_page("/*@VERDICTS@*/", page);
    EXPECT_EQ(html,
              "<h2>&lt;h&gt;</h2><div class=\"verdict fail\">s</div><table class=\"checks\"><thead><tr><th>measure</th>"
              "<th>value</th><th></th><th>threshold</th><th>outcome</th><th>margin</th><th>note</th></tr></thead><tbody>"
              "<tr class=\"failed\" data-measure=\"k&quot;&gt;&lt;x\" data-value=\"1\"><td>k&quot;&gt;&lt;x</td>"
              "<td class=\"num\">1.0000</td><td>&gt;=</td><td class=\"num\">5</td><td class=\"outcome\">fail</td>"
              "<td class=\"num\">-4.0000</td><td>&lt;b&gt;</td></tr></tbody></table>");
    ReportPage bad;
    EXPECT_THROW(read_page_model(parse_json(R"({"title": "t"})"), bad), Error);
    EXPECT_THROW(read_page_model(parse_json(R"({"title": 1, "version": "v", "meta": "m", "profile_line": "p", "verdicts": []})"), bad),
                 Error);
}

TEST(PageWriter, NotesAreEscapedParagraphs) {
    ReportPage page;
    page.data_json = "{}";
    read_page_model(parse_json(R"({"title": "t", "version": "v", "meta": "m", "profile_line": "p",
        "notes": ["age: [20, 40[ </p><script>", "⊥ withheld"], "verdicts": []})"),
                    page);
    EXPECT_EQ(render_page("/*@NOTES@*/", page),
              "<p class=\"notice\">age: [20, 40[ &lt;&#47;p&gt;&lt;script&gt;</p><p class=\"notice\">⊥ withheld</p>");
    ReportPage bad;
    EXPECT_THROW(read_page_model(parse_json(R"({"title": "t", "version": "v", "meta": "m", "profile_line": "p",
        "notes": [1], "verdicts": []})"), bad), Error);
    EXPECT_THROW(read_page_model(parse_json(R"({"title": "t", "version": "v", "meta": "m", "profile_line": "p",
        "notes": "x", "verdicts": []})"), bad), Error);
}

TEST(JsonReader, ReadsWhatJsonbWrites) {
    JsonValue v = parse_json(R"({"a": [1, -2.5e3, true, false, null], "b": "\u00e9\ud83d\ude00\n\"\\"})");
    ASSERT_EQ(v.kind, JsonValue::Kind::Object);
    const JsonValue* a = v.find("a");
    ASSERT_TRUE(a && a->items.size() == 5);
    EXPECT_EQ(a->items[1].text, "-2.5e3");
    EXPECT_TRUE(a->items[2].boolean);
    EXPECT_FALSE(a->items[3].boolean);
    EXPECT_EQ(a->items[4].kind, JsonValue::Kind::Null);
    EXPECT_EQ(v.find("b")->text, "\xC3\xA9\xF0\x9F\x98\x80\n\"\\");
    EXPECT_THROW(parse_json("{\"a\": }"), Error);
    EXPECT_THROW(parse_json("\"\\ud800\""), Error);
    EXPECT_THROW(parse_json("[1] x"), Error);
    EXPECT_THROW(parse_json(std::string(100, '[') + std::string(100, ']')), Error);  // deeper than 64
    EXPECT_NO_THROW(parse_json(std::string(60, '[') + std::string(60, ']')));
}
