// Collects a connection's NOTICE and DEBUG lines (progress reports, audit phases).
#pragma once

#include <pqxx/pqxx>
#include <string>
#include <vector>

namespace privrisk_test {

struct Notices : pqxx::errorhandler {
    explicit Notices(pqxx::connection_base& c) : pqxx::errorhandler(c) {}
    bool operator()(const char msg[]) noexcept override {
        lines.emplace_back(msg);
        return true;
    }
    std::vector<std::string> lines;
};

}  // namespace privrisk_test
