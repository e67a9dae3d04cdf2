#!/usr/bin/env python3
"""Randomized safety of the release's index paths (issue #35): for random
policies over one table and random predicates on its release view, the rows
returned with privrisk.release_index_scans on (and, for every third predicate,
on with sequential scans disabled, so that an index is taken wherever one may
be) equal, as sorted
multisets, the rows returned with it off: the full read filtered above the scan.

Policies use every rule kind (hide, gen through tree, interval, prefix and date
hierarchies, pseudonymize, each unconditional, conditional, or with a condition
that never applies; columns labelled quasi_identifier or identifier, released as
⊥ by default) and sometimes record suppression. The data has NULLs; text columns
have the "C", an ICU and a nondeterministic ICU collation; btree indexes cover
single columns, several columns, and a collation other than the column's.
Predicates: =, <>, <, <=, >, >=, BETWEEN, IN, = ANY, IS [NOT] NULL and
expressions, combined with AND, OR and NOT, with constants and with parameters
(PREPARE/EXECUTE under force_custom_plan and force_generic_plan), alone and in
joins with a small keys table. When the index paths exist (common.py), EXPLAIN of
every query must name only as-is or unconditionally tree-generalized columns in
its Index Cond, and some queries must use an index.

Each round loads its policy, then runs the modes in sessions of their own side by side.
Seeded: a failure prints the seed, the round, the policy and the query.
    test/release/pushdown_random.py [--seed N] [--rounds R] [--predicates P]"""
import argparse
import os
import random
import re
import sys
import time

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INDEX_SCANS_LANDED, PsqlError, fail, fresh_database, psql, psql_sessions, set_index_scans  # noqa: E402
from hierarchies import HIERARCHY_SQL, NUM_LABELS, WORDS, WORD_LABELS, DATES, DATE_LABELS  # noqa: E402

DB = "privrisk_release_index_random"

# name: (source type, the hierarchies a gen rule on it may use)
COLUMNS = {
    "id": ("int", ["rs_id"]),
    "a": ("int", ["rs_num", "rs_num_iv"]),
    "b": ("int", ["rs_num"]),
    "n": ("int", ["rs_num_iv"]),
    "c": ('text COLLATE "C"', ["rs_word", "rs_word_prefix"]),
    "d": (None, ["rs_word"]),  # its collation is drawn per round
    "e": ("text", ["rs_word", "rs_word_prefix"]),
    "dt": ("date", ["rs_date", "rs_date_tree"]),
    "g": ("int", ["rs_num"]),
}
COLLATIONS = ['"C"', '"en-x-icu"', "rs_ci", '"default"']
CONDITIONS = ["g < 3", "a > 50", "c = 'apple'", "e IS NULL", "dt < '2020-06-01'", "n IS NULL", "b % 2 = 0",
              "g = 1 OR a < 20", "a IS NOT NULL AND b > 30", "id % 3 = 0"]
ROLES = ["asis", "asis", "hide_true", "never", "hide", "cond_hide", "gen", "gen", "cond_gen", "pseud", "cond_pseud",
         "qi_default", "qi_disclosed", "qi_gen", "identifier", "gen_cond_hide"]
# Roles whose released value is the raw value in every row: a predicate on them may be pushed.
AS_IS = {"asis", "hide_true", "never", "qi_disclosed"}
INDEXES = ["(a)", "(b)", "(c)", "(d)", "(e)", "(dt)", "(n)", "(g)", "(a, b)", "(c, a)", "(g, id)", "(d, dt)",
           "(e, n)", '(d COLLATE "C")', '(e COLLATE "C")', "(b DESC NULLS LAST)", "(dt, id)"]


class Round:
    def __init__(self, rng, number):
        self.rng, self.number = rng, number
        self.dcoll = rng.choice(COLLATIONS)
        self.types = {c: (t if t else f"text COLLATE {self.dcoll}") for c, (t, _) in COLUMNS.items()}
        self.roles, self.hier, self.level, self.cond = {}, {}, {}, {}
        # A pseudonymizing release costs about 12 ms per query whatever it reads (its value cache):
        # a third of the rounds pseudonymize, so that the test stays well under a minute.
        roles = ROLES if rng.random() < 0.35 else [r for r in ROLES if "pseud" not in r]
        for col, (_, hs) in COLUMNS.items():
            role = "asis" if col == "id" and rng.random() < 0.7 else rng.choice(roles)
            self.roles[col] = role
            self.hier[col] = rng.choice(hs)
            self.level[col] = rng.choice([1, 2])
            self.cond[col] = rng.choice(CONDITIONS)
            if role == "never":
                kinds = ["hide", "gen", "pseudonymize"] if roles is ROLES else ["hide", "gen"]
                self.cond[col] = ("true", rng.choice(kinds))
        self.indexes = rng.sample(INDEXES, rng.randint(2, 7))
        self.suppression = None
        if rng.random() < 0.3:
            self.suppression = (rng.sample(["a", "b", "c", "g", "dt"], 2), rng.choice([2, 3]))
            if rng.random() < 0.7:  # an index on the classes: reads through an index decide class by class
                self.indexes.append("(" + ", ".join(self.suppression[0]) + ")")
        self.rows = self.make_rows()

    def released_type(self, col):
        role = self.roles[col]
        if role in ("gen", "cond_gen", "pseud", "cond_pseud", "qi_gen", "gen_cond_hide"):
            return "text"
        if role == "never" and self.cond[col][1] != "hide":
            return "text"
        return self.types[col].split()[0]

    def make_rows(self):
        rng, rows = self.rng, []
        def maybe(v, p=0.1):
            return None if rng.random() < p else v
        for i in range(1, 1201):
            rows.append({
                "id": i, "a": maybe(rng.randint(0, 100)), "b": maybe(rng.randint(0, 100), 0.05),
                "n": maybe(rng.randint(-50, 50), 0.3), "c": maybe(rng.choice(WORDS)), "d": maybe(rng.choice(WORDS)),
                "e": maybe(rng.choice(WORDS), 0.2), "dt": maybe(rng.choice(DATES)), "g": rng.randint(0, 5)})
        return rows

    def rules_sql(self):
        out = []
        def rule(col, kind, cond, gen=False):
            extra = f", '{self.hier[col]}', {self.level[col]}" if gen else ""
            out.append(f"SELECT privrisk.add_rule('rs_policy', '{col}', '{kind}', $c${cond}$c${extra});")
        for col, role in self.roles.items():
            cond = self.cond[col]
            if role == "hide_true" or role == "qi_disclosed":
                rule(col, "hide", "true")
            elif role == "never":
                rule(col, cond[1], "true", cond[1] == "gen")
            elif role == "hide":
                rule(col, "hide", "false")
            elif role == "cond_hide":
                rule(col, "hide", cond)
            elif role in ("gen", "qi_gen"):
                rule(col, "gen", "false", True)
            elif role == "cond_gen":
                rule(col, "gen", cond, True)
            elif role == "gen_cond_hide":
                rule(col, "gen", "false", True)
                rule(col, "hide", cond)
            elif role == "pseud":
                rule(col, "pseudonymize", "false")
            elif role == "cond_pseud":
                rule(col, "pseudonymize", cond)
        return out

    def setup_sql(self):
        cols = ", ".join(f"{c} {t}" + (" PRIMARY KEY" if c == "id" else "") for c, t in self.types.items())
        lines = ["DROP VIEW IF EXISTS rs_view;",
                 "SELECT privrisk.drop_policy(name, true) FROM privrisk.policy WHERE base_name = 'rs_policy';",
                 "DROP TABLE IF EXISTS rs_keys, rs_source;", f"CREATE TABLE rs_source ({cols});"]
        def lit(v):
            return "NULL" if v is None else (str(v) if isinstance(v, int) else "'" + v.replace("'", "''") + "'")
        values = ",\n".join("(" + ", ".join(lit(r[c]) for c in COLUMNS) + ")" for r in self.rows)
        lines.append(f"INSERT INTO rs_source ({', '.join(COLUMNS)}) VALUES\n{values};")
        lines += [f"CREATE INDEX ON rs_source {ix};" for ix in self.indexes]
        lines.append("ANALYZE rs_source;")
        for col, role in self.roles.items():
            label = {"qi_default": "quasi_identifier", "qi_disclosed": "quasi_identifier", "qi_gen": "quasi_identifier",
                     "identifier": "identifier"}.get(role)
            if label:
                lines.append(f"SECURITY LABEL FOR privrisk ON COLUMN rs_source.{col} IS '{label}';")
        lines.append("SELECT privrisk.create_policy('rs_policy', 'rs_source');")
        lines += self.rules_sql()
        if self.suppression:
            qis, k = self.suppression
            lines.append(f"SELECT privrisk.set_suppression('rs_policy', ARRAY{qis!r}, "
                         f"'{{\"k\": {k}, \"max_suppression\": 0.5}}');")
        lines.append("SET client_min_messages = warning;")
        lines.append("SELECT privrisk.create_release_view('rs_policy', 'rs_view');")
        lines.append("RESET client_min_messages;")
        return "\n".join(lines) + "\n"

    def describe(self):
        parts = [f"collation of d: {self.dcoll}", "indexes: " + ", ".join(self.indexes)]
        for col, role in self.roles.items():
            detail = role
            if role in ("gen", "cond_gen", "qi_gen", "gen_cond_hide") or (role == "never" and self.cond[col][1] == "gen"):
                detail += f" via {self.hier[col]} level {self.level[col]}"
            if role.startswith("cond") or role == "gen_cond_hide":
                detail += f" unless {self.cond[col]}"
            if role == "never":
                detail += f" ({self.cond[col][1]} with condition true)"
            parts.append(f"{col}: {detail}")
        if self.suppression:
            parts.append(f"suppression: classes of {self.suppression[0]}, k = {self.suppression[1]}")
        return "\n  ".join(parts)


class Predicates:
    """Random predicates on the view as templates: each constant is a slot ({}) with its literal and
    type, so the same predicate runs with constants and as a prepared statement's parameters."""

    def __init__(self, rnd):
        self.r, self.rng = rnd, rnd.rng

    def constant(self, col):
        rng, t, role = self.rng, self.r.released_type(col), self.r.roles[col]
        if t == "int":
            pool = [r[col] for r in rng.sample(self.r.rows, 5) if r[col] is not None] + [-1, 0, 50, 100, 5000]
            return str(rng.choice(pool)), "int"
        if t == "date":
            return "'" + rng.choice(DATES + ["2019-12-31", "2021-01-01"]) + "'", "date"
        # text: raw words, and for generalized columns the labels of their hierarchy and raw values as text
        pool = list(WORDS) + ["b", "m", "Z", "apple "]
        source = self.r.types[col].split()[0]
        if source == "int":
            pool = [str(v) for v in range(0, 101, 7)] + NUM_LABELS + ["[40, 50)", "[0, 50)", "[-50, 0)", "10"]
        elif source == "date":
            pool = DATES[::17] + DATE_LABELS + ["2020-03", "2020"]
        elif role not in AS_IS:
            pool += WORD_LABELS + ["app*****", "a*******", "b*******"]
        return "'" + rng.choice(pool).replace("'", "''") + "'", "text"

    def atom(self):
        rng = self.rng
        col = rng.choice(list(COLUMNS) + ["id", "a", "d"])
        ref, t = f"v.{col}", self.r.released_type(col)
        k = rng.random()
        if k < 0.1:
            return f"{ref} IS {rng.choice(['', 'NOT '])}NULL", []
        if k < 0.3:
            return f"{ref} = {{}}", [self.constant(col)]
        if k < 0.5:
            op = rng.choice(["<", "<=", ">", ">=", "<>"])
            collate = ' COLLATE "C"' if t == "text" and rng.random() < 0.3 else ""
            return f"{ref} {op} {{}}{collate}", [self.constant(col)]
        if k < 0.6:
            lo, hi = self.constant(col), self.constant(col)
            return f"{ref} BETWEEN {{}} AND {{}}", [lo, hi]
        if k < 0.75:
            items = [self.constant(col) for _ in range(rng.randint(1, 4))]
            return f"{ref} {rng.choice(['IN', 'NOT IN'])} (" + ", ".join("{}" for _ in items) + ")", items
        if k < 0.85:
            items = [self.constant(col)[0][1:-1].replace("''", "'") if t != "int" else self.constant(col)[0]
                     for _ in range(rng.randint(1, 4))]
            array = "{" + ",".join('"' + i.replace('"', '\\"') + '"' for i in items) + "}"
            array = "'" + array.replace("'", "''") + "'"
            return f"{ref} = ANY ({{}})", [(array + f"::{t}[]", f"{t}[]")]
        if t == "int":
            return f"{ref} + 0 = {{}}", [self.constant(col)]
        if t == "text":
            return f"lower({ref}) = {{}}", [self.constant(col)]
        return f"{ref} - 1 > {{}}", [self.constant(col)]

    def predicate(self, depth=0):
        if depth >= 2 or self.rng.random() < 0.45:
            text, slots = self.atom()
        else:
            (l, ls), (r, rs) = self.predicate(depth + 1), self.predicate(depth + 1)
            text, slots = f"({l}) {self.rng.choice(['AND', 'OR', 'OR'])} ({r})", ls + rs
        if self.rng.random() < 0.08:
            text = f"NOT ({text})"
        return text, slots

    def join(self):
        """A FROM clause joining the keys table, or None."""
        rng, k = self.rng, self.rng.random()
        if k < 0.7:
            return None
        col = rng.choice(["id", "id", "a", "g"])
        rhs = "k.k" if self.r.released_type(col) == "int" else "k.k::text"
        kind = rng.choice(["JOIN", "JOIN", "LEFT JOIN"])
        return f"rs_keys k {kind} rs_view v ON v.{col} = {rhs}"


def query_sql(from_clause, where, literal_slots):
    text = where
    for lit, _ in literal_slots:
        text = text.replace("{}", lit, 1)
    select = "v.*, k.tag" if from_clause.startswith("rs_keys") else "v.*"
    return f"SELECT {select} FROM {from_clause} WHERE {text}"


def run_round(seed, number, predicates):
    rng = random.Random(seed * 100003 + number)
    rnd = Round(rng, number)
    gen = Predicates(rnd)
    queries = []  # (description, sql lines per mode, select for EXPLAIN or None)
    # A suppressing release decides by class only while it runs: its plans are explained as they run.
    explain_as = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF)" if rnd.suppression else "EXPLAIN (COSTS OFF)"
    for i in range(predicates):
        where, slots = gen.predicate()
        from_clause = gen.join() or "rs_view v"
        if slots and rng.random() < 0.25:
            # The same predicate as a prepared statement, custom and generic plans.
            n = 0
            def param(_):
                nonlocal n
                n += 1
                return f"${n}"
            template = re.sub(r"\{\}", param, where)
            select = query_sql(from_clause, template, [])
            types = ", ".join(t for _, t in slots)
            args = ", ".join(lit for lit, _ in slots)
            plan = rng.choice(["force_generic_plan", "force_custom_plan"])
            sql = (f"PREPARE q{i} ({types}) AS {select};\nSET plan_cache_mode = {plan};\n"
                   f"EXECUTE q{i} ({args});\n")
            explain = f"{explain_as} EXECUTE q{i} ({args});\nDEALLOCATE q{i};\nRESET plan_cache_mode;\n"
            queries.append((f"{select}\n  parameters ({types}) = ({args}), {plan}", sql, explain, f"DEALLOCATE q{i};\nRESET plan_cache_mode;\n"))
        else:
            select = query_sql(from_clause, where, slots)
            queries.append((select, select + ";\n", f"{explain_as} {select};\n", ""))
    modes = [("off", set_index_scans(False)), ("on", set_index_scans(True)),
             ("on, enable_seqscan off", set_index_scans(True) + "SET enable_seqscan = off;\n")]
    setup = [HIERARCHY_SQL if number == 0 else "", rnd.setup_sql(), "DROP TABLE IF EXISTS rs_keys;\n",
             "CREATE TABLE rs_keys AS SELECT k, 'tag' || k AS tag FROM unnest(ARRAY[1, 2, 2, 7, 42, 99, 100, "
             "500, 1199, 1200, 5000, -1, NULL, 0, 50]) AS k;\nANALYZE rs_keys;\n"]
    scripts = []  # one session per mode, run side by side
    for m, (mode, sql) in enumerate(modes):
        script = [sql]
        for i, (_, q, explain, cleanup) in enumerate(queries):
            if m == 2 and i % 3:
                continue  # every third predicate: each query costs ~10 ms, and CI has a minute
            script.append(f"\\echo @@ {i} {m}\n{q}")
            if m > 0:
                script.append(f"\\echo @@explain {i} {m}\n{explain}")
            else:
                script.append(cleanup)
        scripts.append("".join(script))
    try:
        psql(DB, "".join(setup))
        outs = psql_sessions(DB, scripts)
    except PsqlError as e:
        fail(f"FAIL seed {seed}, round {number}: an error\n  {e}\npolicy:\n  {rnd.describe()}")
    results, explains, key = {}, {}, None
    for line in "\n".join(outs).split("\n"):
        if line.startswith("@@explain "):
            _, i, m = line.split()
            key = ("explain", int(i), int(m))
            explains[key[1:]] = []
        elif line.startswith("@@ "):
            _, i, m = line.split()
            key = ("rows", int(i), int(m))
            results[key[1:]] = []
        elif key and line:
            (explains if key[0] == "explain" else results)[key[1:]].append(line)
    pushable = {c for c, role in rnd.roles.items() if role in AS_IS} | {
        c for c, role in rnd.roles.items()
        if role in ("gen", "qi_gen") and rnd.hier[c] in ("rs_num", "rs_word", "rs_date_tree")}
    used = nonempty = by_class = 0
    for i, (desc, *_rest) in enumerate(queries):
        reference = sorted(results.get((i, 0), []))
        nonempty += bool(reference)
        for m in ((1, 2) if i % 3 == 0 else (1,)):
            got = sorted(results.get((i, m), []))
            if got != reference:
                missing = [r for r in reference if r not in got][:3]
                extra = [r for r in got if r not in reference][:3]
                fail(f"FAIL seed {seed}, round {number}, query {i}, mode '{modes[m][0]}': {len(got)} rows, "
                     f"{len(reference)} with index paths off\n  query: {desc}\n  missing: {missing}\n  extra: {extra}\n"
                     f"policy:\n  {rnd.describe()}\nplan:\n  " + "\n  ".join(explains.get((i, m), [])))
            plan = explains.get((i, m), [])
            if any("Source Index" in l for l in plan):
                used += 1
            by_class += any("Suppression Class Index" in l for l in plan)
            for l in plan:
                if "Index Cond" in l and "PrivriskRelease" in "\n".join(plan):
                    cond = re.sub(r"'(?:[^']|'')*'", "''", l.split("Index Cond:", 1)[1])  # not the constants' words
                    named = set(re.findall(r"\b([a-z]+)\b", cond)) & set(COLUMNS)
                    if not named <= pushable:
                        fail(f"FAIL seed {seed}, round {number}, query {i}: an index condition on "
                             f"{sorted(named - pushable)}, which the policy does not release as they are\n"
                             f"  query: {desc}\n  {l.strip()}\npolicy:\n  {rnd.describe()}")
    return len(queries), used, nonempty, by_class


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=int(os.environ.get("PRIVRISK_SEED", "35")))
    p.add_argument("--rounds", type=int, default=20)
    p.add_argument("--predicates", type=int, default=50)
    a = p.parse_args()
    started = time.time()
    fresh_database(DB)
    total = used = nonempty = by_class = 0
    for number in range(a.rounds):
        n, u, e, c = run_round(a.seed, number, a.predicates)
        total, used, nonempty, by_class = total + n, used + u, nonempty + e, by_class + c
    print(f"ok   {total} random predicates over {a.rounds} random policies (seed {a.seed}; {nonempty} "
          f"select rows): the same rows with index paths on and off; {used} plans read through a source index, {by_class} of them "
          f"deciding record suppression class by class ({time.time() - started:.0f} s)")
    if nonempty < total * 2 // 5:
        fail(f"FAIL only {nonempty} of {total} predicates select rows: the comparisons say little")
    if INDEX_SCANS_LANDED and used < total // 10:
        fail(f"FAIL only {used} of {2 * total} plans used a source index: the test no longer exercises the index paths")


if __name__ == "__main__":
    main()
