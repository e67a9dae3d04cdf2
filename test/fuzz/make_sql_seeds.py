#!/usr/bin/env python3
"""Seeds for sql_fuzz.py's targets, taken from the regression suites and the docs:
every add_rule condition (rule_conditions), every jsonb object literal (options),
every jsonb array of mapped attributes (mappings). One input per file.

    test/fuzz/make_sql_seeds.py test/fuzz/corpus"""
import hashlib
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SOURCES = [os.path.join(ROOT, "test/regress/sql", f) for f in sorted(os.listdir(os.path.join(ROOT, "test/regress/sql")))]
SOURCES += [os.path.join(ROOT, "docs", f) for f in sorted(os.listdir(os.path.join(ROOT, "docs"))) if f.endswith(".md")]
LITERAL = r"'((?:[^']|'')*)'"


def write(corpus, target, texts):
    folder = os.path.join(corpus, target)
    os.makedirs(folder, exist_ok=True)
    for text in sorted(set(texts)):
        name = hashlib.sha1(text.encode()).hexdigest()[:16]
        with open(os.path.join(folder, name), "w", encoding="utf-8") as f:
            f.write(text)
    print(f"{target}: {len(set(texts))} seeds")


def main():
    corpus = sys.argv[1]
    conditions, options, mappings = [], [], []
    for path in SOURCES:
        text = open(path, encoding="utf-8").read()
        # add_rule(policy, column, op, condition, ...): the fourth argument when it is a literal.
        for m in re.finditer(r"add_rule\(\s*" + LITERAL + r"\s*,\s*" + LITERAL + r"\s*,\s*" + LITERAL + r"\s*,\s*" + LITERAL, text):
            conditions.append(m.group(4).replace("''", "'"))
        for m in re.finditer(LITERAL, text):
            body = m.group(1).replace("''", "'")
            if not body.startswith(("{", "[")):
                continue
            try:
                value = json.loads(body)
            except ValueError:
                continue
            if isinstance(value, dict):
                options.append(body)
            elif isinstance(value, list) and value and all(isinstance(v, dict) and "released" in v for v in value):
                mappings.append(body)
    write(corpus, "rule_conditions", conditions)
    write(corpus, "options", options)
    write(corpus, "mappings", mappings)


if __name__ == "__main__":
    main()
