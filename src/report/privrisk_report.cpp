// privrisk-report: writes privrisk.report()'s HTML to a file (docs/report.md).
//
//   privrisk-report --source TABLE --profile PROFILE [--levels 2,0,1] [--title TEXT]
//                   [--dbname CONNINFO] --output FILE
//
// The connection takes libpq's environment (PGHOST, PGDATABASE, …) unless
// --dbname gives a connection string. The quasi-identifiers, hierarchies and
// sensitive column come from the table's column labels.
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include <pqxx/pqxx>

namespace {

int usage(const char* why) {
    if (why) std::cerr << "privrisk-report: " << why << "\n";
    std::cerr << "usage: privrisk-report --source TABLE --profile PROFILE [--levels L1,L2,...] [--title TEXT]\n"
                 "                       [--dbname CONNINFO] --output FILE\n";
    return 2;
}

// "2,0,1" as a PostgreSQL array literal, checked to be integers.
std::optional<std::string> levels_array(const std::string& text) {
    std::stringstream in(text);
    std::string item, out;
    while (std::getline(in, item, ',')) {
        if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos) return std::nullopt;
        out += (out.empty() ? "" : ",") + item;
    }
    if (out.empty()) return std::nullopt;
    return "{" + out + "}";
}

// What the server answered must be one page: one row of one column, not NULL, an
// HTML document from "<!DOCTYPE html>" to "</html>". Anything else (a server or a
// function that is not what the client expects, a cut connection) is reported and
// nothing is written.
std::optional<std::string> answer_problem(const pqxx::result& r) {
    if (r.columns() != 1) return "it has " + std::to_string(r.columns()) + " columns, not 1";
    if (r.size() != 1) return "it has " + std::to_string(r.size()) + " rows, not 1";
    if (r[0][0].is_null()) return "the page is NULL";
    std::string_view page(r[0][0].c_str(), r[0][0].size());
    const std::string_view head = "<!DOCTYPE html>", tail = "</html>";
    if (page.substr(0, head.size()) != head) return "it is not an HTML page (it does not start with <!DOCTYPE html>)";
    while (!page.empty() && (page.back() == '\n' || page.back() == '\r' || page.back() == ' ')) page.remove_suffix(1);
    if (page.size() < head.size() + tail.size() || page.substr(page.size() - tail.size()) != tail)
        return "the page is cut short (it does not end with </html>)";
    return std::nullopt;
}

}  // namespace

int main(int argc, char** argv) {
    std::string source, profile, output, dbname;
    std::optional<std::string> levels, title;
    for (int i = 1; i < argc; ++i) {
        std::string arg = argv[i];
        if (arg == "--help" || arg == "-h") return usage(nullptr), 0;
        if (i + 1 >= argc) return usage(("missing the value of " + arg).c_str());
        std::string value = argv[++i];
        if (arg == "--source") source = value;
        else if (arg == "--profile") profile = value;
        else if (arg == "--output") output = value;
        else if (arg == "--dbname") dbname = value;
        else if (arg == "--title") title = value;
        else if (arg == "--levels") {
            levels = levels_array(value);
            if (!levels) return usage("--levels takes non-negative integers separated by commas, e.g. 2,0,1");
        } else return usage(("unknown option " + arg).c_str());
    }
    if (source.empty() || profile.empty() || output.empty()) return usage("--source, --profile and --output are required");
    try {
        pqxx::connection c{dbname};
        pqxx::nontransaction tx{c};
        // The table's name is resolved by the server on the session's search_path.
        pqxx::result r = tx.exec_params(
            "SELECT privrisk.report($1::pg_catalog.regclass, $2, levels => $3::pg_catalog.int4[], title => $4)",
            source, profile, levels, title);
        if (auto problem = answer_problem(r)) {
            std::cerr << "privrisk-report: privrisk.report() gave no usable page: " << *problem << "; nothing written\n";
            return 1;
        }
        std::string html(r[0][0].c_str(), r[0][0].size());
        std::ofstream out(output, std::ios::binary);
        if (!out) {
            std::cerr << "privrisk-report: cannot write " << output << ": " << std::strerror(errno) << "\n";
            return 1;
        }
        out << html;
        out.close();
        if (!out) {
            std::cerr << "privrisk-report: writing " << output << " failed\n";
            return 1;
        }
        std::cout << "privrisk-report: wrote " << output << " (" << html.size() << " bytes)\n";
    } catch (const pqxx::sql_error& e) {
        std::cerr << "privrisk-report: " << e.what();
        return 1;
    } catch (const std::exception& e) {
        std::cerr << "privrisk-report: " << e.what() << "\n";
        return 1;
    }
    return 0;
}
