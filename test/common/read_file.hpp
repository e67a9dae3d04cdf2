// A whole file as bytes, for clients that feed data files to the library or the
// server: unit tests (the shared hierarchies) and the benchmark.
#pragma once

#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace privrisk_test {

inline std::string read_file(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

}  // namespace privrisk_test
