// One field of /proc/<pid>/status in kB (VmHWM, RssAnon, …), for clients that
// measure a backend on the same machine: integration tests and the benchmark.
#pragma once

#include <fstream>
#include <string>

namespace privrisk_test {

inline long proc_status_kb(int pid, const std::string& field) {
    std::ifstream in("/proc/" + std::to_string(pid) + "/status");
    std::string key;
    while (in >> key) {
        if (key == field + ":") {
            long kb;
            in >> kb;
            return kb;
        }
        std::getline(in, key);
    }
    return -1;
}

}  // namespace privrisk_test
