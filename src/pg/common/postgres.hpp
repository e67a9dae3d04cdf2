// The one place the PostgreSQL headers enter C++ (docs/architecture.md). Only src/pg/ includes it.
#pragma once

extern "C" {
#include "postgres.h"

#include "access/attmap.h"
#include "access/htup_details.h"
#include "access/tupconvert.h"
#include "catalog/pg_inherits.h"
#include "access/parallel.h"
#include "access/relscan.h"
#include "access/table.h"
#include "access/tableam.h"
#include "access/stratnum.h"
#include "catalog/pg_class.h"
#include "catalog/pg_opfamily_d.h"
#include "catalog/pg_proc.h"
#include "commands/explain.h"
#include "executor/executor.h"
#include "nodes/extensible.h"
#include "nodes/makefuncs.h"
#include "nodes/nodeFuncs.h"
#include "nodes/supportnodes.h"
#include "optimizer/cost.h"
#include "optimizer/optimizer.h"
#include "optimizer/pathnode.h"
#include "optimizer/paths.h"
#include "optimizer/plancat.h"
#include "optimizer/restrictinfo.h"
#include "optimizer/tlist.h"
#include "parser/parse_coerce.h"
#include "parser/parse_collate.h"
#include "parser/parse_expr.h"
#include "parser/parse_func.h"
#include "parser/parsetree.h"
#include "parser/parse_relation.h"
#include "parser/parser.h"
#include "utils/acl.h"
#include "utils/rel.h"
#include "utils/rls.h"
#include "utils/syscache.h"
#include "utils/regproc.h"
#include "utils/typcache.h"
#include "catalog/namespace.h"
#include "catalog/objectaddress.h"
#include "commands/seclabel.h"
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
