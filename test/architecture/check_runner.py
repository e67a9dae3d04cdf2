"""What the architecture checks share: how they are run and report.

    python3 test/architecture/<check>.py            # the tree: each finding, then one ok/FAIL line
    python3 test/architecture/<check>.py --self-test  # the check on a made-up tree finds what it must
"""
import glob
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def self_test_result(ok, claim, got):
    """Prints the self-test's line (`claim` when `ok`, else what the check found); its exit code."""
    print(f"ok   {claim}" if ok else "FAIL the check found: " + "; ".join(got))
    return 0 if ok else 1


def run_check(find, self_test, claim):
    """Runs `self_test()` with --self-test, else prints what find(ROOT) finds and the ok/FAIL line."""
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    found = find(ROOT)
    for f in found:
        print(f)
    print(f"{'ok  ' if not found else 'FAIL'} {claim}{'' if not found else f': {len(found)} found'}")
    return 1 if found else 0


LINE_COMMENT = re.compile(r"(?<!:)//")  # a C++ comment, not the // of a URL in a string


def code_lines(root, folder, pattern, comment=LINE_COMMENT):
    """Each (path relative to root, line number, the line without its comment) of the files matching
    `pattern` under root/folder, in path order."""
    for path in sorted(glob.glob(os.path.join(root, folder, "**", pattern), recursive=True)):
        rel = os.path.relpath(path, root)
        with open(path, encoding="utf-8", errors="replace") as f:
            for number, line in enumerate(f, 1):
                yield rel, number, comment.split(line, 1)[0]


def write_tree(root, files):
    """A made-up tree for a self-test: {relative path: text}."""
    for rel, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, rel)), exist_ok=True)
        with open(os.path.join(root, rel), "w") as f:
            f.write(text)
