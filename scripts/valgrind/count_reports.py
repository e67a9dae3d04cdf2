#!/usr/bin/env python3
"""Reads the memcheck logs of scripts/valgrind/run (one per server process) and
says which reports are privrisk's.

    count_reports.py LOGDIR

- An invalid read or write, a bad free or a definite leak is privrisk's when any
  frame of its stack is in privrisk.so (privrisk did it, or handed the server
  what it tripped on).
- A use of uninitialised bytes is privrisk's when the bytes came from privrisk
  (a privrisk frame where valgrind says they were created: --track-origins) or
  when privrisk itself uses them (its frame is the innermost one outside the C
  library). When privrisk is only further out on the stack (the budget worker
  commits, and the server writes its WAL page) and the log has no origin, the
  report is unresolved: rerun those suites with --track-origins to see where
  the bytes came from.

Prints the totals, every privrisk report and every unresolved one in full, then
the server's own reports by kind. Exit status: 1 when any report is privrisk's,
2 when some are unresolved, else 0."""
import collections
import pathlib
import re
import sys

BEGIN, END = "VALGRINDERROR-BEGIN", "VALGRINDERROR-END"
FRAME = re.compile(r"\s*(at|by) 0x[0-9A-F]+: (.*)")
LIBRARY = re.compile(r"\((?:in )?/(?:usr/)?lib(?:exec)?/|\b(?:libc|ld-linux|vgpreload)[\w.-]*\b|\((?:[\w-]+\.[cS]):\d+\)")
UNINITIALISED = ("uninitialised", "Conditional jump", "Use of uninitialised")


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


def split(block):
    """The report's own stack (the frames before its first "Address …" or "… was created by"
    line), the origin's stack (after "Uninitialised value was created by"), and every frame."""
    own, origin, every = [], [], []
    part = own
    for line in block[1:]:
        m = FRAME.match(line)
        if m:
            part.append(m.group(2))
            every.append(m.group(2))
        elif line.strip():
            part = origin if "was created by" in line else []
    return own, origin, every


def classify(block):
    own, origin, every = split(block)
    ours = lambda frames: any("privrisk" in f for f in frames)
    if not any(k in block[0] for k in UNINITIALISED):
        return "privrisk" if ours(every) else "server"
    if ours(origin):
        return "privrisk"
    innermost = next((f for f in own if not LIBRARY.search(f)), "")
    if "privrisk" in innermost:
        return "privrisk"
    if ours(own) and not origin:
        return "unresolved"
    return "server"


def main():
    logdir = pathlib.Path(sys.argv[1])
    found = {"privrisk": [], "unresolved": []}
    server = collections.Counter()
    processes = 0
    for log in sorted(logdir.glob("*.log")):
        processes += 1
        for block in reports(log):
            kind = classify(block)
            if kind in found:
                found[kind].append((log.name, block))
            else:
                first = next((l for l in block if l.strip()), "?")
                server[re.sub(r"0x[0-9A-F]+|\d+", "N", first.strip())] += 1
    print(f"{processes} server processes logged, {len(found['privrisk'])} reports attributed to privrisk, "
          f"{len(found['unresolved'])} unresolved, {sum(server.values())} in PostgreSQL's own frames")
    for kind in ("privrisk", "unresolved"):
        for name, block in found[kind]:
            print(f"\n-- {kind}: {name}")
            print("\n".join(block[:60]))
    if found["unresolved"]:
        print("\nUnresolved: uninitialised bytes the server used while privrisk was further out on the stack;"
              "\nrerun the suites that made them with --track-origins to see where the bytes came from.")
    if server:
        print("\nPostgreSQL's own reports, by kind (no privrisk frame, or bytes the server made and used):")
        for kind, n in server.most_common():
            print(f"  {n:5d}  {kind}")
    return 1 if found["privrisk"] else 2 if found["unresolved"] else 0


if __name__ == "__main__":
    sys.exit(main())
