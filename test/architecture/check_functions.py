#!/usr/bin/env python3
"""No function in src/ is longer than 120 lines (docs/architecture.md): a long
entry point is split into the steps it takes, each named.

A function here is a definition that starts at the beginning of a line (the
house style: namespaces are not indented) and ends at the next line that is a
lone closing brace at the beginning of a line; its length counts both lines.

    python3 test/architecture/check_functions.py            # the tree
    python3 test/architecture/check_functions.py --self-test  # the check finds what it must
Prints each function past the limit as FILE:LINE and exits 1 if there is any.
"""
import glob
import os
import re
import sys
import tempfile

from check_runner import run_check, self_test_result

LIMIT = 120
# A definition's first line: a name followed by its parameters, or PRIVRISK_FUNCTION(name).
START = re.compile(r'^(?!namespace|struct|class|enum|union|extern|typedef|using|template|#|//|\s)'
                   r'[^;{}]*\b[\w:~]+\s*\(')


def long_functions(root, limit=LIMIT):
    found = []
    for path in sorted(glob.glob(os.path.join(root, "src", "**", "*.[ch]pp"), recursive=True)):
        with open(path, encoding="utf-8", errors="replace") as f:
            lines = f.read().split("\n")
        i = 0
        while i < len(lines):
            if START.match(lines[i]):
                # Its body's opening brace ends the signature (a declaration ends with ';' first).
                j = i
                while j < len(lines) and not lines[j].rstrip().endswith("{") and not lines[j].rstrip().endswith(";"):
                    j += 1
                if j < len(lines) and lines[j].rstrip().endswith("{") and not re.match(r"^\s*\}", lines[j]):
                    k = j + 1
                    while k < len(lines) and not re.match(r"^\}\s*(//.*)?$", lines[k]):
                        k += 1
                    length = k - i + 1
                    if length > limit:
                        found.append(f"{os.path.relpath(path, root)}:{i + 1}: {length} lines: {lines[i].strip()[:70]}")
                    i = k
            i += 1
    return found


def self_test():
    """A tree with a function one line past the limit, one at the limit, and a long declaration."""
    with tempfile.TemporaryDirectory() as root:
        os.makedirs(os.path.join(root, "src", "pg", "search"))
        body = lambda n: "\n".join(f"    int x{i} = {i};" for i in range(n))
        with open(os.path.join(root, "src", "pg", "search", "a.cpp"), "w") as f:
            f.write("namespace privrisk {\n\nint too_long(int a,\n             int b) {\n" + body(LIMIT - 2) +
                    "\n}\n\nPRIVRISK_FUNCTION(privrisk_fits) {\n" + body(LIMIT - 2) + "\n}\n\n"
                    "void declared(int a,\n              int b);\n\n}  // namespace privrisk\n")
        got = long_functions(root)
    ok = len(got) == 1 and got[0].startswith("src/pg/search/a.cpp:3: 121 lines")
    return self_test_result(ok, "the check finds a function of 121 lines, and not one of 120 nor a declaration", got)


if __name__ == "__main__":
    sys.exit(run_check(long_functions, self_test, f"no function in src/ over {LIMIT} lines"))
