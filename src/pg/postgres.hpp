// The one place the PostgreSQL headers enter C++ (SPEC §3). Only src/pg/ includes it.
#pragma once

extern "C" {
#include "postgres.h"

#include "access/htup_details.h"
#include "catalog/namespace.h"
#include "catalog/pg_type.h"
#include "commands/trigger.h"
#include "executor/spi.h"
#include "fmgr.h"
#include "funcapi.h"
#include "miscadmin.h"
#include "utils/array.h"
#include "utils/builtins.h"
#include "utils/date.h"
#include "utils/datetime.h"
#include "utils/inval.h"
#include "utils/lsyscache.h"
#include "utils/memutils.h"
}

// PostgreSQL's headers define these as macros that break the C++ standard library.
#undef vsnprintf
#undef snprintf
#undef sprintf
#undef vfprintf
#undef fprintf
#undef printf
#undef gettext
#undef dgettext
#undef ngettext
#undef dngettext
