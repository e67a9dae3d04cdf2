// Included last by every src/core/*.cpp: the compiler, not a reviewer, keeps
// PostgreSQL headers out of the core library (docs/architecture.md).
#pragma once
#ifdef POSTGRES_H
static_assert(false, "src/core must not include PostgreSQL headers");
#endif
