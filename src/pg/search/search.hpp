// Settings of search(), registered when the module loads.
#pragma once

namespace privrisk::pg {

extern int search_progress_interval_ms;  // privrisk.search_progress_interval
void register_search_settings();

}  // namespace privrisk::pg
