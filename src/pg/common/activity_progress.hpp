// A running operation's progress where other sessions can see it: at the head
// of this backend's pg_stat_activity.query ("/* privrisk search: 412 of 1440
// nodes considered …, 5.0 s, at most about 12 s left */ SELECT …"), read by the
// view privrisk.progress (docs/progress.md). PostgreSQL's own rules decide who
// sees it (the same role, or pg_read_all_stats).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>

#include "common/postgres.hpp"

namespace privrisk::pg {

class ActivityProgress {
public:
    explicit ActivityProgress(const char* operation);
    void show(const std::string& progress);  // replaces the previous one
    void finish();                           // the statement's own text again

private:
    std::string operation_;
    std::string statement_;
    bool shown_ = false;
};

// A read's rows of the planner's estimate for `relid` (pg_class.reltuples), shown
// at most every 100 ms; past the estimate (or without one), the total is what was
// read so far.
class RowsReadProgress {
public:
    RowsReadProgress(const char* operation, Oid relid);
    void rows(int64_t read);  // the rows read so far: call it every few thousand
    void finish() { activity_.finish(); }

private:
    ActivityProgress activity_;
    double estimate_;
    std::chrono::steady_clock::time_point started_ = std::chrono::steady_clock::now(), last_shown_ = started_;
};

}  // namespace privrisk::pg
