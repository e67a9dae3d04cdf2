"""What the architecture checks share: how they are run and report.

    python3 test/architecture/<check>.py            # the tree: each finding, then one ok/FAIL line
    python3 test/architecture/<check>.py --self-test  # the check on a made-up tree finds what it must
"""
import os
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
