#!/usr/bin/env python3
"""No SQL that privrisk runs calls privrisk.gen on behalf of audit(), search(),
lattice() or check() (docs/architecture.md, "the class reader"): they read level-0
classes and generalize each distinct value once in C++.

gen() is written into SQL by three things only: class_key_expressions (in
src/pg/classes/class_query.cpp, behind class_query), the shards' GROUP BY
(src/pg/classes/shard_grouping_scan.cpp), which serves the analyst's own query
naming gen(), and the workload utility (src/pg/information/utility_functions.cpp),
which reads the published columns row by row. class_query serves classes() and
the DP releases. So:
- the text `privrisk.gen(` appears in code (not comments) in WRITERS only;
- class_key_expressions and class_query are called from CALLERS only.
The readers' own queries (class_tally_query, shard_classes_query) take plain
columns, so they cannot carry a hierarchy. In src/sql, no function body calls
gen() (only its own definitions name it).

    python3 test/architecture/check_gen_sql.py            # the tree
    python3 test/architecture/check_gen_sql.py --self-test  # the check finds what it must
Prints each finding as FILE:LINE and exits 1 if there is any.
"""
import os
import re
import sys
import tempfile

from check_runner import code_lines, run_check, self_test_result, write_tree

WRITERS = {"src/pg/classes/class_query.cpp", "src/pg/classes/shard_grouping_scan.cpp",
           "src/pg/information/utility_functions.cpp"}
GEN_WRITERS = ["class_key_expressions", "class_query"]
CALLERS = {"src/pg/classes/class_query.cpp", "src/pg/classes/class_functions.cpp",
           "src/pg/dp/dp_release_steps.cpp", "src/pg/classes/shard_grouping_scan.cpp"}
CALL = re.compile(r"\b(" + "|".join(GEN_WRITERS) + r")\s*\(")
GEN = re.compile(r'privrisk\s*\.\s*"?gen"?\s*\(')
DEFINITION = re.compile(r"FUNCTION\s+privrisk\.gen\s*\(", re.IGNORECASE)


def findings(root):
    found = []
    for rel, number, code in code_lines(root, "src/pg", "*.[ch]pp"):
        if GEN.search(code) and rel not in WRITERS:
            found.append(f"{rel}:{number}: writes privrisk.gen( into SQL")
        if not code.startswith((" ", "\t")):
            continue  # a declaration or definition (the house style indents every statement)
        for m in CALL.finditer(code):
            if rel not in CALLERS:
                found.append(f"{rel}:{number}: calls {m.group(1)}(), which writes gen() into SQL")
    for rel, number, code in code_lines(root, "src/sql", "*.sql", re.compile("--")):
        if os.path.basename(rel) != "comments.sql" and GEN.search(code) and not DEFINITION.search(code):
            found.append(f"{rel}:{number}: calls privrisk.gen in SQL")
    return found


def self_test():
    """A tree where a measure writes gen() itself and calls class_query; a writer and a comment that may."""
    with tempfile.TemporaryDirectory() as root:
        write_tree(root, {
            "src/sql/measures/check.sql": "CREATE OR REPLACE FUNCTION privrisk.gen(value text) RETURNS text AS 'x';\n"
                                          "-- privrisk.gen(a) in a comment\n"
                                          "SELECT privrisk . \"gen\" (a, 'h', 1) FROM t;\n",
            "src/pg/classes/class_query.cpp": 'std::string e() {\n    return "privrisk.gen(" + c;\n}\n',
            "src/pg/measures/audit_read.cpp": 'void read() {\n    // privrisk.gen( and class_query( in a comment\n'
                                              '    std::string q = class_query(source, {}, columns, s);\n'
                                              '    q += "SELECT privrisk.gen(a, $1, $2)";\n'
                                              '    q += "-- see https://example.org"; q += "privrisk.gen(b, $3, $4)";\n}\n'})
        got = findings(root)
    ok = (len(got) == 4 and got[0].startswith("src/pg/measures/audit_read.cpp:3: calls class_query()")
          and got[1].startswith("src/pg/measures/audit_read.cpp:4: writes privrisk.gen(")
          and got[2].startswith("src/pg/measures/audit_read.cpp:5: writes privrisk.gen(")
          and got[3].startswith("src/sql/measures/check.sql:3: calls privrisk.gen"))
    return self_test_result(ok, "the check finds gen() written or class_query called outside their places", got)


if __name__ == "__main__":
    sys.exit(run_check(findings, self_test, "no SQL privrisk runs for audit/search/lattice/check calls gen()"))
