// The report's page (docs/report.md), written from data only. Text reaches the
// page in one of two ways, each with its own escaping, and no other:
//  - as Html, which is either escaped text (Html::text) or markup written in
//    this library as a string literal (Html::markup): a caller cannot hand over
//    a fragment of HTML;
//  - as a script element's content: JSON with every character that could end
//    the element or change how it is parsed written as a \u escape
//    (script_json), or an installed script checked to hold none of them.
// The template's placeholders are filled in one pass over the template, so a
// value that spells a placeholder stays what it is.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "report/json_reader.hpp"

namespace privrisk {

class Html {
public:
    Html() = default;
    // Any text: & < > " ' / become character references (safe in text and in
    // double- or single-quoted attribute values).
    static Html text(std::string_view s);
    // Markup of this library's own: a string literal.
    template <std::size_t N>
    static Html markup(const char (&literal)[N]) {
        return Html(std::string(literal, N - 1));
    }
    Html& operator+=(const Html& more) {
        s_ += more.s_;
        return *this;
    }
    friend Html operator+(Html a, const Html& b) { return a += b; }
    const std::string& str() const { return s_; }

private:
    explicit Html(std::string s) : s_(std::move(s)) {}
    std::string s_;
};

// JSON text made safe as the content of a <script> element: < > & U+2028 and
// U+2029 as \u escapes (they only occur inside strings). The text is read
// first: anything but one JSON document is refused.
std::string script_json(std::string_view json);
// An installed script for a <script> element: refused if it holds "</script"
// or "<!--" (either changes where the element ends).
std::string script_code(std::string_view name, std::string_view code);

// One verdict table: strings as the page shows them (numbers already formatted).
struct VerdictRow {
    bool passed = false;
    std::string measure, value, shown_value, comparison, threshold, margin, note;
};
struct VerdictTable {
    std::string heading, summary;
    bool publishable = false;
    std::vector<VerdictRow> rows;
};

struct ReportPage {
    std::string title, version, meta, profile_line;
    std::vector<std::string> notes;  // paragraphs under the profile line (levels, suppression)
    std::vector<VerdictTable> verdicts;
    std::string data_json;                         // the charts' data, JSON
    std::string charts_js, vega_js, vega_lite_js;  // installed scripts
};

// The page model as privrisk.report() passes it (JSON; see report.sql):
// {"title", "version", "meta", "profile_line", "notes": [text, …] (optional), "verdicts": [{"heading", "publishable",
// "summary",
//  "checks": [{"passed", "measure", "value", "shown_value", "comparison", "threshold", "margin", "note"}]}]}.
// Every member is required, with its type; InvalidParameter names what is wrong.
void read_page_model(const JsonValue& model, ReportPage& page);

// The page: `tmpl` with each /*@NAME@*/ replaced (TITLE, VERSION, META, PROFILE,
// NOTES, VERDICTS, DATA, CHARTS, VEGA, VEGA_LITE); an unknown placeholder is an error.
std::string render_page(std::string_view tmpl, const ReportPage& page);

}  // namespace privrisk
