// Settings of audit(), registered when the module loads.
#pragma once

namespace privrisk::pg {

extern int audit_memory_limit_kb;  // privrisk.audit_memory_limit
void register_audit_settings();

}  // namespace privrisk::pg
