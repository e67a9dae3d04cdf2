// report_asset(name): a file privrisk.report() inlines into its HTML (the page
// template, the chart script, the plotting libraries), installed beside the
// extension's scripts as privrisk-report-<name> (docs/report.md). Only the
// names below are read; nothing else of the server's files.
#include <fstream>
#include <iterator>

#include "common/args.hpp"
#include "common/error.hpp"

using namespace privrisk;
using namespace privrisk::pg;

PRIVRISK_FUNCTION(privrisk_report_asset) {
    std::string name(text_arg_view(fcinfo, 0, "asset"));
    static const char* const kAssets[] = {"template.html", "charts.js", "vega.min.js", "vega-lite.min.js"};
    bool known = false;
    for (const char* a : kAssets) known = known || name == a;
    if (!known) fail(ErrorKind::InvalidParameter, "report_asset: unknown asset " + quote_value(name));
    char share[MAXPGPATH];
    pg_call([&] { get_share_path(my_exec_path, share); });
    std::string path = std::string(share) + "/extension/privrisk-report-" + name;
    std::ifstream in(path, std::ios::binary);
    if (!in)
        fail(ErrorKind::UndefinedObject, "report asset " + quote_value(path) + " is not installed: reinstall privrisk");
    std::string content((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    return text_datum(content);
}
