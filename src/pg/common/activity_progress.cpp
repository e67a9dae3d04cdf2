#include "common/activity_progress.hpp"

#include <algorithm>

#include "common/guard.hpp"
#include "common/progress.hpp"
#include "common/source_columns.hpp"

extern "C" {
#include "tcop/tcopprot.h"
#include "utils/backend_status.h"
}

namespace privrisk::pg {

ActivityProgress::ActivityProgress(const char* operation)
    : operation_(operation), statement_(debug_query_string ? debug_query_string : "") {}

void ActivityProgress::show(const std::string& progress) {
    // "*/" inside the text would end the comment early: the texts are ours, but keep the form sure.
    std::string text = "/* privrisk " + operation_ + ": " + progress + " */ " + statement_;
    const char* activity = text.c_str();
    pg_call([&] { pgstat_report_activity(STATE_RUNNING, activity); });
    shown_ = true;
}

void ActivityProgress::finish() {
    if (!shown_) return;
    const char* activity = statement_.c_str();
    pg_call([&] { pgstat_report_activity(STATE_RUNNING, activity); });
    shown_ = false;
}

RowsReadProgress::RowsReadProgress(const char* operation, Oid relid)
    : activity_(operation), estimate_(estimated_rows(relid)) {}

void RowsReadProgress::rows(int64_t read) {
    const auto now = std::chrono::steady_clock::now();
    if (now - last_shown_ < std::chrono::milliseconds(100)) return;
    last_shown_ = now;
    const int64_t total = std::max<int64_t>(read, static_cast<int64_t>(estimate_));
    activity_.show(Progress{read, total, std::chrono::duration<double>(now - started_).count()}.text("rows read", ""));
}

}  // namespace privrisk::pg
