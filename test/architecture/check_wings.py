#!/usr/bin/env python3
"""The house's wings stay in order (docs/architecture.md): in each layer, a file
includes its own wing, `common/`, or a wing below its own, never one above.

The order, lowest first, is WINGS. In src/pg an include counts when it names a
file of src/pg (every core header is below the whole adapter); in src/core, a
file of src/core. src/pg/module.cpp, the module entry, stands above every wing.
A folder that WINGS does not name fails too, so a new wing is placed on purpose.

    python3 test/architecture/check_wings.py            # the tree
    python3 test/architecture/check_wings.py --self-test  # the check finds what it must
Prints each violation as FILE:LINE and exits 1 if there is any.
"""
import os
import re
import sys
import tempfile

from check_runner import run_check, self_test_result

WINGS = ["common", "hierarchy", "labels", "classes", "measures", "ck", "profiles", "search",
         "dtrisk", "information", "dp", "release", "watch", "report"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"(\w+)/([\w./]+)"')


def violations(root):
    rank = {w: i for i, w in enumerate(WINGS)}
    found = []
    for layer in ("core", "pg"):
        base = os.path.join(root, "src", layer)
        if not os.path.isdir(base):
            continue
        for wing in sorted(os.listdir(base)):
            folder = os.path.join(base, wing)
            if not os.path.isdir(folder):
                continue
            if wing not in rank:
                found.append(f"src/{layer}/{wing}/: a wing the order in test/architecture/check_wings.py does not name")
                continue
            for name in sorted(os.listdir(folder)):
                if not name.endswith((".cpp", ".hpp")):
                    continue
                path = os.path.join(folder, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if not m or m.group(1) not in rank:
                            continue
                        target, header = m.group(1), m.group(2)
                        if not os.path.exists(os.path.join(base, target, header)):
                            continue  # another layer's header (core, seen from pg)
                        if rank[target] > rank[wing]:
                            found.append(f"src/{layer}/{wing}/{name}:{number}: {wing} includes {target}/{header}, "
                                         f"a higher wing")
    return found


def self_test():
    """A tree with one include upward, one downward and one unknown wing."""
    with tempfile.TemporaryDirectory() as root:
        def write(path, text):
            os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
            with open(os.path.join(root, path), "w") as f:
                f.write(text)
        write("src/pg/release/scan.hpp", "#pragma once\n")
        write("src/pg/classes/reader.hpp", "#pragma once\n")
        write("src/core/classes/class_set.hpp", "#pragma once\n")
        write("src/pg/classes/reader.cpp", '#include "classes/reader.hpp"\n#include "release/scan.hpp"\n')
        write("src/pg/release/scan.cpp", '#include "classes/reader.hpp"\n#include "classes/class_set.hpp"\n')
        write("src/pg/search/uses_core.cpp", '#include "classes/class_set.hpp"\n')
        write("src/pg/attic/old.cpp", "\n")
        write("src/pg/module.cpp", '#include "release/scan.hpp"\n')
        got = violations(root)
    want_upward = "src/pg/classes/reader.cpp:2: classes includes release/scan.hpp, a higher wing"
    ok = len(got) == 2 and want_upward in got and any(v.startswith("src/pg/attic/") for v in got)
    return self_test_result(ok, "the check finds an include upward and an unknown wing, and nothing else", got)


if __name__ == "__main__":
    sys.exit(run_check(violations, self_test, f"no include from a lower wing to a higher one (order: {' < '.join(WINGS)})"))
