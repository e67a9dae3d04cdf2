#!/usr/bin/env python3
"""The mechanical check behind 'every statement privrisk runs is pinned and qualified'.

1. Only src/pg/spi.cpp and src/pg/row_stream.cpp call SPI to run or prepare a
   statement; both run it under search_path = pg_catalog, pg_temp (and the
   budget worker, a backend of its own pinned to that path when it starts).
2. Every SQL text in src/pg (C++ string literals that read as SQL, adjacent
   literals joined) names types, functions and operators by schema:
   `::pg_catalog.t`, `pg_catalog.f(…)`, `OPERATOR(pg_catalog.=)`.
3. (In the regression suite) every SQL or PL/pgSQL function of the extension
   has search_path pinned in pg_proc.proconfig.

Exits 1 and lists every offence; prints the number of statements checked.
"""
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
PG = ROOT / "src" / "pg"
# dp_budget_worker.cpp runs in a background worker, a backend of its own whose
# search_path it pins for its whole life before it runs any statement.
SPI_ALLOWED = {"spi.cpp", "row_stream.cpp", "dp_budget_worker.cpp"}
SPI_RUN = re.compile(r"\bSPI_(execute\w*|prepare\w*|cursor_open\w*|exec)\s*\(")
LITERAL = re.compile(r'"((?:[^"\\\n]|\\.)*)"')
# A statement or a piece of one: starts like SQL, or holds a parameter.
SQL_WORD = re.compile(r"^\s*(SELECT|INSERT|UPDATE|DELETE|WITH|CREATE|FROM|WHERE|[)\],])|\$\d")
# Words followed by "(" that are grammar, not a function looked up on the path.
KEYWORDS = {"VALUES", "IN", "EXISTS", "AS", "ANY", "ALL", "ARRAY", "FILTER", "OVER", "CONFLICT", "COALESCE",
            "NULLIF", "GREATEST", "LEAST", "OPERATOR", "SELECT", "WHERE", "AND", "OR", "NOT", "ON", "USING",
            "FROM", "JOIN", "BY", "THEN", "ELSE", "WHEN", "CASE", "RETURNING", "SET", "INTO", "WITH", "LATERAL"}


def sql_literals(text):
    """Yields (line, sql) for each run of adjacent string literals that reads as SQL."""
    pos = 0
    while True:
        m = LITERAL.search(text, pos)
        if not m:
            return
        start, parts, end = m.start(), [m.group(1)], m.end()
        while True:
            nxt = re.match(r'\s*"((?:[^"\\\n]|\\.)*)"', text[end:])
            if not nxt:
                break
            parts.append(nxt.group(1))
            end += nxt.end()
        pos = end
        sql = "".join(parts)
        if SQL_WORD.search(sql):
            yield text.count("\n", 0, start) + 1, sql


def offences(sql):
    s = re.sub(r"'(?:[^']|'')*'", "''", sql)               # string constants
    s = re.sub(r"OPERATOR\(pg_catalog\.[^)]+\)", " ", s)     # qualified operators
    s = re.sub(r"\$\d+", " p ", s)
    s = re.sub(r"(\bSET|,)\s*\w+\s*=\s", " ", s)              # assignments of UPDATE … SET
    found = []
    for m in re.finditer(r"::\s*(\"?\w+)", s):
        if not re.match(r"::\s*(pg_catalog|privrisk)\.", s[m.start():]):
            found.append("unqualified type ::" + m.group(1))
    for m in re.finditer(r"(<>|!=|<=|>=|->>|->|\|\||[=<>+])", s):
        found.append("unqualified operator " + m.group(1))
    for m in re.finditer(r"(?<![.\w\"])([A-Za-z_]\w*)\s*\(", s):
        if m.group(1).upper() not in KEYWORDS and not re.search(r"\bAS\s+$", s[:m.start()], re.I):
            found.append("unqualified function " + m.group(1) + "()")
    return found


def main():
    problems, checked = [], 0
    for path in sorted(PG.glob("**/*.cpp")):
        text = path.read_text()
        rel = path.relative_to(ROOT)
        if path.name not in SPI_ALLOWED:
            for m in SPI_RUN.finditer(text):
                problems.append(f"{rel}:{text.count(chr(10), 0, m.start()) + 1}: calls SPI_{m.group(1)} outside spi.cpp/row_stream.cpp")
        for line, sql in sql_literals(text):
            checked += 1
            for o in offences(sql):
                problems.append(f"{rel}:{line}: {o} in \"{sql[:90]}\"")
    for p in problems:
        print(p)
    print(f"check_sql: {checked} SQL texts checked, {len(problems)} offences")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
