// The report's page (docs/report.md): report_page(model, data) writes the HTML
// privrisk.report() returns, from data only (src/core/report/page_writer.hpp
// decides every escape), with the files it inlines: the page template, the
// chart script, the plotting libraries, installed beside the extension's
// scripts as privrisk-report-<name>. Only those names are read; nothing else
// of the server's files.
#include <fstream>
#include <iterator>

#include "common/args.hpp"
#include "common/error.hpp"
#include "report/page_writer.hpp"

using namespace privrisk;
using namespace privrisk::pg;

namespace {

std::string read_asset(const std::string& name) {
    char share[MAXPGPATH];
    pg_call([&] { get_share_path(my_exec_path, share); });
    std::string path = std::string(share) + "/extension/privrisk-report-" + name;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(ErrorKind::UndefinedObject, "report asset " + quote_value(path) + " is not installed: reinstall privrisk");
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

// report_page(model jsonb, data jsonb): the page. `model` holds the texts and
// the verdict tables (read_page_model), `data` the charts' data.
PRIVRISK_FUNCTION(privrisk_report_page) {
    if (PG_ARGISNULL(0) || PG_ARGISNULL(1))
        fail(ErrorKind::InvalidParameter, "report_page: model and data must not be NULL");
    ReportPage page;
    read_page_model(parse_json(jsonb_text(PG_GETARG_DATUM(0))), page);
    page.data_json = jsonb_text(PG_GETARG_DATUM(1));
    page.charts_js = read_asset("charts.js");
    page.vega_js = read_asset("vega.min.js");
    page.vega_lite_js = read_asset("vega-lite.min.js");
    return text_datum(render_page(read_asset("template.html"), page));
}

// report_asset(name): the installed file. 0.13 and earlier defined privrisk.report_asset()
// on this symbol: their scripts, which an update from them runs first, need it, and a
// database not yet updated keeps working with this library. 0.14 drops the SQL function.
PRIVRISK_FUNCTION(privrisk_report_asset) {
    std::string name(text_arg_view(fcinfo, 0, "asset"));
    static const char* const kAssets[] = {"template.html", "charts.js", "vega.min.js", "vega-lite.min.js"};
    bool known = false;
    for (const char* a : kAssets) known = known || name == a;
    if (!known) fail(ErrorKind::InvalidParameter, "report_asset: unknown asset " + quote_value(name));
    return text_datum(read_asset(name));
}
