// A running operation's progress where other sessions can see it: at the head
// of this backend's pg_stat_activity.query ("/* privrisk search: 412 of 1440
// nodes considered …, 5.0 s, at most about 12 s left */ SELECT …"), read by the
// view privrisk.progress (docs/progress.md). PostgreSQL's own rules decide who
// sees it (the same role, or pg_read_all_stats).
#pragma once

#include <string>

namespace privrisk::pg {

class ActivityProgress {
public:
    explicit ActivityProgress(const char* operation);
    void show(const std::string& progress);  // replaces the previous one
    void finish();                            // the statement's own text again

private:
    std::string operation_;
    std::string statement_;
    bool shown_ = false;
};

}  // namespace privrisk::pg
