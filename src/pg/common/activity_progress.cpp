#include "common/activity_progress.hpp"

#include "common/guard.hpp"

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

}  // namespace privrisk::pg
