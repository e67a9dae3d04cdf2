#!/usr/bin/env python3
"""The documentation is a test: every ```sql block of README.md and docs/*.md
runs, in order, in a fresh database per file (the blocks create what they use),
and a ```text block right after a ```sql block is the output psql must print.

    test/docs/run_docs.py            run every block; exit 1 on an error or a difference
    test/docs/run_docs.py --update   rewrite the ```text blocks with what psql printed

Uses psql and the PG* environment of the server under test."""
import os
import re
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
FENCE = re.compile(r"^```(\w*)[^\n]*\n(.*?)^```[ \t]*$", re.S | re.M)


def blocks(text):
    """(language, body, start, end) of each fenced block, in order."""
    return [(m.group(1), m.group(2), m.start(), m.end()) for m in FENCE.finditer(text)]


def psql(database, args, stdin=None):
    return subprocess.run(["psql", "-X", "-d", database] + args, input=stdin, capture_output=True, text=True)


def normalized(output):
    return "\n".join(line.rstrip() for line in output.strip("\n").split("\n"))


def run_file(path, update):
    rel = os.path.relpath(path, ROOT)
    text = open(path, encoding="utf-8").read()
    found = blocks(text)
    database = "privrisk_docs_" + re.sub(r"[^a-z0-9]+", "_", rel.lower())
    psql("postgres", ["-q", "-c", f"DROP DATABASE IF EXISTS {database}", "-c", f"CREATE DATABASE {database}"])
    # As the README installs it: the label provider loaded in every session.
    psql(database, ["-q", "-c", "CREATE EXTENSION privrisk", "-c",
                    f"ALTER DATABASE {database} SET session_preload_libraries = 'privrisk'"])
    ran, failures, replacements = 0, [], []
    try:
        for i, (lang, body, _, _) in enumerate(found):
            if lang != "sql":
                continue
            ran += 1
            # Blocks run from the repository root, so \set x `cat ../shared/…` reads the data in place.
            r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", database], input=body,
                               capture_output=True, text=True, cwd=ROOT)
            line = text.count("\n", 0, found[i][2]) + 1
            if r.returncode != 0:
                failures.append(f"{rel}:{line}: the block fails:\n{r.stderr.strip()}")
                continue
            following = found[i + 1] if i + 1 < len(found) else None
            if following and following[0] == "text" and text[found[i][3]:following[2]].strip() == "":
                if update:
                    replacements.append((following[2], following[3], "```text\n" + normalized(r.stdout) + "\n```"))
                elif normalized(r.stdout) != normalized(following[1]):
                    failures.append(f"{rel}:{line}: the output differs from the text block below it:\n"
                                    f"--- documented\n{normalized(following[1])}\n+++ printed\n{normalized(r.stdout)}")
    finally:
        psql("postgres", ["-q", "-c", f"DROP DATABASE IF EXISTS {database} WITH (FORCE)"])
    if update and replacements:
        for start, end, new in reversed(replacements):
            text = text[:start] + new + text[end:]
        open(path, "w", encoding="utf-8").write(text)
    return ran, failures


def main():
    update = "--update" in sys.argv
    files = [os.path.join(ROOT, "README.md")] + sorted(
        os.path.join(ROOT, "docs", f) for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    total, failures = 0, []
    for path in files:
        ran, failed = run_file(path, update)
        total += ran
        failures += failed
    for f in failures:
        print(f, file=sys.stderr)
    print(f"docs: {total} SQL blocks of {len(files)} files run, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
