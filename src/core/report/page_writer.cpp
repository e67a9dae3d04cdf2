#include "report/page_writer.hpp"

#include <algorithm>
#include <cctype>

#include "common/error.hpp"
#include "common/no_postgres.hpp"

namespace privrisk {

Html Html::text(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    for (char c : s) {
        switch (c) {
            case '&':
                out += "&amp;";
                break;
            case '<':
                out += "&lt;";
                break;
            case '>':
                out += "&gt;";
                break;
            case '"':
                out += "&quot;";
                break;
            case '\'':
                out += "&#39;";
                break;
            case '/':
                out += "&#47;";
                break;  // so no text spells a placeholder or ends an element
            default:
                out += c;
        }
    }
    return Html(std::move(out));
}

std::string script_json(std::string_view json) {
    parse_json(json);  // one JSON document, or an error: the escapes below are only valid in strings
    std::string out;
    out.reserve(json.size() + json.size() / 16);
    for (std::size_t i = 0; i < json.size(); ++i) {
        char c = json[i];
        if (c == '<') out += "\\u003c";
        else if (c == '>') out += "\\u003e";
        else if (c == '&') out += "\\u0026";
        else if (c == '\xE2' && i + 2 < json.size() && json[i + 1] == '\x80' &&
                 (json[i + 2] == '\xA8' || json[i + 2] == '\xA9')) {
            out += json[i + 2] == '\xA8' ? "\\u2028" : "\\u2029";  // line and paragraph separators
            i += 2;
        } else out += c;
    }
    return out;
}

std::string script_code(std::string_view name, std::string_view code) {
    std::string lower(code);
    std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return char(std::tolower(c)); });
    if (lower.find("</script") != std::string::npos || lower.find("<!--") != std::string::npos)
        fail(ErrorKind::Internal,
             "report asset " + std::string(name) + " holds \"</script\" or \"<!--\": reinstall privrisk");
    return std::string(code);
}

namespace {

const JsonValue& member(const JsonValue& object, const char* key, JsonValue::Kind kind, const char* where) {
    static const char* const kKinds[] = {"null", "a boolean", "a number", "a string", "an array", "an object"};
    const JsonValue* v = object.kind == JsonValue::Kind::Object ? object.find(key) : nullptr;
    if (!v || v->kind != kind)
        fail(ErrorKind::InvalidParameter,
             std::string("report page: ") + where + " needs \"" + key + "\" as " + kKinds[static_cast<int>(kind)]);
    return *v;
}

std::string string_of(const JsonValue& o, const char* key, const char* where) {
    return member(o, key, JsonValue::Kind::String, where).text;
}

bool bool_of(const JsonValue& o, const char* key, const char* where) {
    return member(o, key, JsonValue::Kind::Bool, where).boolean;
}

Html verdict_table(const VerdictTable& t) {
    Html h = Html::markup("<h2>") + Html::text(t.heading) + Html::markup("</h2>");
    h += (t.publishable ? Html::markup("<div class=\"verdict pass\">") : Html::markup("<div class=\"verdict fail\">")) +
         Html::text(t.summary) + Html::markup("</div>");
    h += Html::markup(
        "<table class=\"checks\"><thead><tr><th>measure</th><th>value</th><th></th><th>threshold</th>"
        "<th>outcome</th><th>margin</th><th>note</th></tr></thead><tbody>");
    for (const VerdictRow& r : t.rows) {
        h += r.passed ? Html::markup("<tr class=\"passed\"") : Html::markup("<tr class=\"failed\"");
        h += Html::markup(" data-measure=\"") + Html::text(r.measure) + Html::markup("\" data-value=\"") +
             Html::text(r.value) + Html::markup("\">");
        h += Html::markup("<td>") + Html::text(r.measure) + Html::markup("</td>");
        h += Html::markup("<td class=\"num\">") + Html::text(r.shown_value) + Html::markup("</td>");
        h += Html::markup("<td>") + Html::text(r.comparison) + Html::markup("</td>");
        h += Html::markup("<td class=\"num\">") + Html::text(r.threshold) + Html::markup("</td>");
        h += Html::markup("<td class=\"outcome\">") + (r.passed ? Html::markup("pass") : Html::markup("fail")) +
             Html::markup("</td>");
        h += Html::markup("<td class=\"num\">") + Html::text(r.margin) + Html::markup("</td>");
        h += Html::markup("<td>") + Html::text(r.note) + Html::markup("</td></tr>");
    }
    return h + Html::markup("</tbody></table>");
}

}  // namespace

void read_page_model(const JsonValue& model, ReportPage& page) {
    if (model.kind != JsonValue::Kind::Object)
        fail(ErrorKind::InvalidParameter, "report page: the model must be an object");
    page.title = string_of(model, "title", "the page");
    page.version = string_of(model, "version", "the page");
    page.meta = string_of(model, "meta", "the page");
    page.profile_line = string_of(model, "profile_line", "the page");
    if (model.find("notes"))
        for (const JsonValue& n : member(model, "notes", JsonValue::Kind::Array, "the page").items) {
            if (n.kind != JsonValue::Kind::String)
                fail(ErrorKind::InvalidParameter, "report page: every note must be a string");
            page.notes.push_back(n.text);
        }
    for (const JsonValue& v : member(model, "verdicts", JsonValue::Kind::Array, "the page").items) {
        VerdictTable t;
        t.heading = string_of(v, "heading", "a verdict");
        t.summary = string_of(v, "summary", "a verdict");
        t.publishable = bool_of(v, "publishable", "a verdict");
        for (const JsonValue& c : member(v, "checks", JsonValue::Kind::Array, "a verdict").items) {
            VerdictRow r;
            r.passed = bool_of(c, "passed", "a check");
            r.measure = string_of(c, "measure", "a check");
            r.value = string_of(c, "value", "a check");
            r.shown_value = string_of(c, "shown_value", "a check");
            r.comparison = string_of(c, "comparison", "a check");
            r.threshold = string_of(c, "threshold", "a check");
            r.margin = string_of(c, "margin", "a check");
            r.note = string_of(c, "note", "a check");
            t.rows.push_back(std::move(r));
        }
        page.verdicts.push_back(std::move(t));
    }
}

std::string render_page(std::string_view tmpl, const ReportPage& page) {
    Html verdicts, notes;
    for (const VerdictTable& t : page.verdicts) verdicts += verdict_table(t);
    for (const std::string& n : page.notes)
        notes += Html::markup("<p class=\"notice\">") + Html::text(n) + Html::markup("</p>");
    const std::string data = script_json(page.data_json);
    const std::string charts = script_code("charts.js", page.charts_js);
    const std::string vega = script_code("vega.min.js", page.vega_js);
    const std::string vega_lite = script_code("vega-lite.min.js", page.vega_lite_js);
    const Html title = Html::text(page.title), version = Html::text(page.version), meta = Html::text(page.meta),
               profile = Html::text(page.profile_line);
    auto content = [&](std::string_view name) -> const std::string& {
        if (name == "TITLE") return title.str();
        if (name == "VERSION") return version.str();
        if (name == "META") return meta.str();
        if (name == "PROFILE") return profile.str();
        if (name == "NOTES") return notes.str();
        if (name == "VERDICTS") return verdicts.str();
        if (name == "DATA") return data;
        if (name == "CHARTS") return charts;
        if (name == "VEGA") return vega;
        if (name == "VEGA_LITE") return vega_lite;
        fail(ErrorKind::Internal, "report template: unknown placeholder " + quote_value(name));
    };
    std::string out;
    out.reserve(tmpl.size() + data.size() + charts.size() + vega.size() + vega_lite.size() + verdicts.str().size() +
                notes.str().size());
    std::size_t at = 0;
    while (true) {
        std::size_t open = tmpl.find("/*@", at);
        if (open == std::string_view::npos) break;
        std::size_t close = tmpl.find("@*/", open + 3);
        if (close == std::string_view::npos) fail(ErrorKind::Internal, "report template: an unclosed placeholder");
        out.append(tmpl.substr(at, open - at));
        out += content(tmpl.substr(open + 3, close - open - 3));
        at = close + 3;
    }
    out.append(tmpl.substr(at));
    return out;
}

}  // namespace privrisk
