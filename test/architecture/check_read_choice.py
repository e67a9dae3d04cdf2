#!/usr/bin/env python3
"""One place decides how a class read reads (docs/architecture.md): whether a
source is read over its shards, from its heap, by how many parallel workers, and
whether workers' tallies pay is asked in src/pg/classes/read_choice.cpp
(choose_read) and nowhere else in src/pg.

A call is one of DECIDERS followed by '(' on an indented line that is not a
comment; an unindented line is the function's own declaration or definition.

    python3 test/architecture/check_read_choice.py            # the tree
    python3 test/architecture/check_read_choice.py --self-test  # the check finds what it must
Prints each call outside read_choice.cpp as FILE:LINE and exits 1 if there is any.
"""
import re
import sys
import tempfile

from check_runner import code_lines, run_check, self_test_result, write_tree

DECIDERS = ["readable_from_heap", "parallel_class_workers", "class_shards", "parallel_tally_pays", "source_shards"]
CALL = re.compile(r"\b(" + "|".join(DECIDERS) + r")\s*\(")
# source_shards is class_shards' own step, in the file that defines both.
ALLOWED = {"src/pg/classes/read_choice.cpp": set(DECIDERS), "src/pg/classes/class_query.cpp": {"source_shards"}}


def calls_elsewhere(root):
    found = []
    for rel, number, code in code_lines(root, "src/pg", "*.[ch]pp"):
        if not code.startswith((" ", "\t")):
            continue  # a declaration or definition (the house style indents every statement)
        for m in CALL.finditer(code):
            if m.group(1) not in ALLOWED.get(rel, set()):
                found.append(f"{rel}:{number}: {m.group(1)}() decides how to read outside choose_read")
    return found


def self_test():
    """A tree with one call in read_choice.cpp, one elsewhere, a definition and a comment."""
    with tempfile.TemporaryDirectory() as root:
        write_tree(root, {
            "src/pg/classes/read_choice.cpp": "int choose() {\n    return parallel_class_workers(r, k);\n}\n",
            "src/pg/measures/audit.cpp": "bool readable_from_heap(Oid relid) {\n    // readable_from_heap(relid) in a "
                                         "comment\n    const bool direct = readable_from_heap(relid);\n}\n"})
        got = calls_elsewhere(root)
    ok = len(got) == 1 and got[0].startswith("src/pg/measures/audit.cpp:3: readable_from_heap()")
    return self_test_result(ok, "the check finds a call outside read_choice.cpp, and not a definition nor a comment", got)


if __name__ == "__main__":
    sys.exit(run_check(calls_elsewhere, self_test, "one place decides how a class read reads (choose_read)"))
