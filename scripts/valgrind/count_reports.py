#!/usr/bin/env python3
"""Reads the memcheck logs of scripts/valgrind (one per server process) and
says which reports are privrisk's: a report is attributed to privrisk when any
frame of its stack, or of the stack where the value or block came from, is in
privrisk.so (its functions, or its object file when symbols are missing).

    count_reports.py LOGDIR

Prints the totals and every attributed report in full, then the server's own
reports by kind; exits 1 when any report is attributed to privrisk."""
import collections
import pathlib
import re
import sys

BEGIN, END = "VALGRINDERROR-BEGIN", "VALGRINDERROR-END"


def reports(log):
    block = None
    for line in log.read_text(errors="replace").splitlines():
        body = re.sub(r"^==\d+== ?", "", line)
        if body == BEGIN:
            block = []
        elif body == END and block is not None:
            yield block
            block = None
        elif block is not None:
            block.append(body)


def ours(block):
    return any("privrisk" in line for line in block if re.match(r"\s*(at|by) 0x", line))


def main():
    logdir = pathlib.Path(sys.argv[1])
    logs = sorted(logdir.glob("*.log"))
    attributed, server = [], collections.Counter()
    processes = 0
    for log in logs:
        processes += 1
        for block in reports(log):
            if ours(block):
                attributed.append((log.name, block))
            else:
                first = next((l for l in block if l.strip()), "?")
                server[re.sub(r"0x[0-9A-F]+|\d+", "N", first.strip())] += 1
    print(f"{processes} server processes logged, {len(attributed)} reports attributed to privrisk, "
          f"{sum(server.values())} in PostgreSQL's own frames")
    for name, block in attributed:
        print(f"\n-- {name}")
        print("\n".join(block[:60]))
    if server:
        print("\nPostgreSQL's own reports, by kind (not privrisk's: no privrisk frame in stack or origin):")
        for kind, n in server.most_common():
            print(f"  {n:5d}  {kind}")
    return 1 if attributed else 0


if __name__ == "__main__":
    sys.exit(main())
