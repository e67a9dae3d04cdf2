// The progress of a long operation as a person reads it: what is done of how
// much, the time spent, and an estimate of the time left (docs/progress.md).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

namespace privrisk {

struct Progress {
    int64_t done = 0;
    int64_t total = 0;
    double elapsed_s = 0;
    bool upper_estimate = false;  // the time left is an upper estimate ("at most about")
    // done/total extrapolated at the rate so far; none before anything is done.
    // An upper estimate for the search: later nodes are coarser and cheaper, and
    // the utility bound may end it early.
    std::optional<double> remaining_s() const;
    // "412 of 1440 nodes considered (120 evaluated), 5.0 s, at most about 12 s left"
    // `unit` names what is counted, `detail` is added in parentheses when not empty.
    std::string text(const char* unit, const std::string& detail) const;
};

}  // namespace privrisk
