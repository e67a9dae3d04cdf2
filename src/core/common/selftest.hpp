// Exercises the error boundary: throws from `depth` frames down, each frame
// holding heap objects whose destructors must run (docs/architecture.md, issue 2 item 3).
#pragma once

#include <string>

namespace privrisk {

// Returns the sum of the frame sizes it built; throws Error at the bottom when `fail` is set.
long selftest_descend(int depth, bool fail);

}  // namespace privrisk
