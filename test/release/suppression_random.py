#!/usr/bin/env python3
"""Record suppression decided class by class (docs/release.md, "Record suppression"):
for random policies that suppress records (quasi-identifiers released as they
are, through a tree hierarchy, or under a conditional rule; k, max_risk,
distinct l-diversity, sometimes t-closeness, which is always counted in full),
random indexes and random selective queries (points, ranges, IN lists, joins with
a key table), the rows a read through an index releases when it counts each
class through an index of the source equal those it releases when it counts the
whole source first (privrisk.release_suppression_by_class off). Both sessions
read through the source's indexes (enable_seqscan off). EXPLAIN ANALYZE of the
first says how many reads decided class by class; the test fails if too few did.
Full reads (the whole source counted) release the same rows serially, where each
row's class is replayed from the count's record (counted by one process, or by two
workers sharing the source's blocks), and in parallel, where it is found by the
row's values; with k or max_risk alone, exactly the rows SQL finds: those of
the release without suppression whose class, grouped by the released
quasi-identifiers, is large enough.

Usage: suppression_random.py [--seed N] [--rounds N] [--queries N]"""
import argparse
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import PsqlError, fail, fresh_database, psql, psql_sessions  # noqa: E402

DB = "privrisk_suppression_random"
ROWS = 3000
# a: 0-20 (tree: 0-4, 5-9, … ; then 0-9, 10-20), c: ten words (tree: two groups), b, g as they are.
HIERARCHIES = """
SELECT privrisk.load_hierarchy('sr_a', string_agg(v || ';' || (v / 5 * 5) || '-' || (v / 5 * 5 + 4) || ';'
       || CASE WHEN v < 10 THEN 'low' ELSE 'high' END || ';*', E'\\n' ORDER BY v)) FROM generate_series(0, 20) AS v;
SELECT privrisk.load_hierarchy('sr_c', string_agg(w || ';' || CASE WHEN i <= 5 THEN 'early' ELSE 'late' END || ';*',
       E'\\n' ORDER BY i)) FROM unnest(ARRAY['ant', 'bee', 'cat', 'dog', 'eel', 'fox', 'gnu', 'hen', 'ibis', 'jay'])
       WITH ORDINALITY AS u(w, i);
"""


def table_sql(rng):
    rows = []
    words = ["ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "ibis", "jay"]
    for i in range(1, ROWS + 1):
        a = "NULL" if rng.random() < 0.03 else str(min(20, int(rng.expovariate(0.25))))
        b = str(rng.randint(0, 6))
        c = "NULL" if rng.random() < 0.03 else "'" + rng.choice(words[: rng.choice([3, 10])]) + "'"
        g = "'" + rng.choice(["x", "y", "z"]) + "'"
        s = "'" + rng.choices(["flu", "cold", "asthma", "cancer"], [6, 3, 2, 1])[0] + "'"
        rows.append(f"({i}, {a}, {b}, {c}, {g}, {s})")
    return ("DROP VIEW IF EXISTS sr_view;\nSELECT privrisk.drop_policy(name, true) FROM privrisk.policy;\n"
            "DROP TABLE IF EXISTS sr_source, sr_keys;\n"
            "CREATE TABLE sr_source (id int PRIMARY KEY, a int, b int, c text, g text, s text);\n"
            "INSERT INTO sr_source VALUES " + ",\n".join(rows) + ";\n")


class Round:
    def __init__(self, rng):
        self.qis = rng.sample(["a", "b", "c", "g"], rng.choice([1, 2, 3, 3]))
        self.rules = []
        for q in self.qis:
            kind = rng.choice(["as is", "as is", "gen", "conditional"])
            if kind == "gen" and q in ("a", "c"):
                self.rules.append(f"SELECT privrisk.add_rule('sr', '{q}', 'gen', 'false', 'sr_{q}', {rng.choice([1, 2])});")
            elif kind == "conditional":
                self.rules.append(f"SELECT privrisk.add_rule('sr', '{q}', 'hide', 'id % 7 <> 0');")
        c = {"k": rng.choice([3, 5, 8, 15, 30]), "max_suppression": 1}
        self.sensitive = None
        pick = rng.random()
        if pick < 0.25:
            c["l"] = 2
            self.sensitive = "s"
        elif pick < 0.35:
            c["t"] = 0.4
            self.sensitive = "s"
        elif pick < 0.45:
            c = {"max_risk": 0.2, "max_suppression": 1}
        self.constraints = c
        self.indexes = ["(" + ", ".join(self.qis) + ")"]
        if rng.random() < 0.5:
            self.indexes.append(f"({rng.choice(self.qis)})")
        if rng.random() < 0.3:
            self.indexes = [f"({rng.choice(self.qis)}, id)"]

    def setup_sql(self):
        import json
        sensitive = f", '{self.sensitive}'" if self.sensitive else ""
        return ("".join(f"CREATE INDEX ON sr_source {ix};\n" for ix in self.indexes) +
                "ANALYZE sr_source;\nSELECT privrisk.create_policy('sr', 'sr_source');\n" + "\n".join(self.rules) + "\n" +
                f"SELECT privrisk.set_suppression('sr', ARRAY{self.qis!r}, '{json.dumps(self.constraints)}'{sensitive});\n"
                "SET client_min_messages = warning;\nSELECT privrisk.create_release_view('sr', 'sr_view');\n"
                "RESET client_min_messages;\n"
                "CREATE TABLE sr_keys AS SELECT (i * 37) % 3100 AS k FROM generate_series(1, 40) AS i;\nANALYZE sr_keys;\n")

    def describe(self):
        return f"classes of {self.qis}, rules {self.rules}, constraints {self.constraints}, indexes {self.indexes}"


def queries(rng, n):
    out = []
    for _ in range(n):
        kind = rng.random()
        if kind < 0.4:
            out.append(f"SELECT * FROM sr_view WHERE id = {rng.randint(-5, ROWS + 5)}")
        elif kind < 0.7:
            lo = rng.randint(1, ROWS)
            out.append(f"SELECT * FROM sr_view WHERE id BETWEEN {lo} AND {lo + rng.choice([3, 30, 300, 2000])}")
        elif kind < 0.9:
            ids = ", ".join(str(rng.randint(1, ROWS)) for _ in range(rng.randint(2, 12)))
            out.append(f"SELECT * FROM sr_view WHERE id IN ({ids})")
        else:
            out.append("SELECT v.* FROM sr_keys k JOIN sr_view v ON v.id = k.k")
    return out


def run_round(seed, number, n):
    rng = random.Random(seed * 7919 + number)
    rnd = Round(rng)
    qs = queries(rng, n)
    try:
        psql(DB, table_sql(rng) + rnd.setup_sql())
        on, off = [], []
        for i, q in enumerate(qs):
            on.append(f"\\echo @@ {i}\n{q};\n\\echo @@explain {i}\nEXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) {q};\n")
            off.append(f"\\echo @@ {i}\n{q};\n")
        common = "SET enable_seqscan = off;\nSET enable_bitmapscan = off;\n"
        outs = psql_sessions(DB, [common + "".join(on),
                                  common + "SET privrisk.release_suppression_by_class = off;\n" + "".join(off)])
    except PsqlError as e:
        fail(f"FAIL seed {seed}, round {number}: an error\n  {e}\npolicy: {rnd.describe()}")
    parsed = []
    for out in outs:
        rows, plans, key = {}, {}, None
        for line in out.split("\n"):
            if line.startswith("@@explain "):
                key = ("plan", int(line.split()[1]))
                plans[key[1]] = []
            elif line.startswith("@@ "):
                key = ("rows", int(line.split()[1]))
                rows[key[1]] = []
            elif key and line:
                (plans if key[0] == "plan" else rows)[key[1]].append(line)
        parsed.append((rows, plans))
    by_class = suppressed_somewhere = 0
    for i, q in enumerate(qs):
        got, want = sorted(parsed[0][0].get(i, [])), sorted(parsed[1][0].get(i, []))
        if got != want:
            fail(f"FAIL seed {seed}, round {number}, query {i}: {len(got)} rows by class, {len(want)} counting the "
                 f"whole source\n  query: {q}\n  missing: {[r for r in want if r not in got][:3]}\n"
                 f"  extra: {[r for r in got if r not in want][:3]}\npolicy: {rnd.describe()}\nplan:\n  " +
                 "\n  ".join(parsed[0][1].get(i, [])))
        by_class += any("Suppression Class Index" in l for l in parsed[0][1].get(i, []))
    counts = psql(DB, "SELECT count(*) FROM sr_view;\nSET privrisk.release_index_scans = off;\n"
                      "SELECT count(*) FROM privrisk.release('sr') AS r(id int);\n").split()
    suppressed_somewhere = int(counts[0]) < ROWS
    check_full_read(seed, number, rnd)
    return by_class, suppressed_somewhere


def check_full_read(seed, number, rnd):
    """Full reads, the whole source counted first. The serial read takes each row's class
    from the count's record of it; a parallel read finds it by the row's values: the same
    rows. With k or max_risk alone, they are also those SQL finds: the rows of the release
    without suppression whose class (GROUP BY the released quasi-identifiers) has at least
    k rows (or at least 1 / max_risk)."""
    # Every released value, not only which rows: a row's values come from its own conditions.
    ids = ("SELECT 'rows ' || count(*) || ' ' || md5(coalesce(string_agg(v::text, '|' ORDER BY v.id), '')) "
           "FROM sr_view AS v;\n")
    explain = "EXPLAIN (ANALYZE, COSTS OFF, TIMING OFF, SUMMARY OFF) SELECT id FROM sr_view;\n"
    sql = ("SET privrisk.release_index_scans = off;\nSET max_parallel_workers_per_gather = 0;\n" + ids + explain +
           "SET max_parallel_workers_per_gather = 2;\nSET parallel_setup_cost = 0;\nSET parallel_tuple_cost = 0;\n"
           "SET min_parallel_table_scan_size = 0;\n" + ids + explain +
           # A serial plan whose count two workers share (the leader counting nothing).
           "ALTER TABLE sr_source SET (parallel_workers = 2);\nSET parallel_setup_cost = 1e9;\n"
           "SET parallel_leader_participation = off;\n" + ids + explain +
           "ALTER TABLE sr_source RESET (parallel_workers);\nRESET ALL;\n")
    c = rnd.constraints
    by_sql = not set(c) - {"k", "max_risk", "max_suppression"}
    if by_sql:
        least = c["k"] if "k" in c else 1 / c["max_risk"]
        plain = "\n".join(r.replace("add_rule('sr',", "add_rule('sr_plain',") for r in rnd.rules)
        sql += ("SELECT privrisk.create_policy('sr_plain', 'sr_source');\n" + plain + "\n"
                "SET client_min_messages = warning;\nSELECT privrisk.create_release_view('sr_plain', 'sr_plain_view');\n"
                "RESET client_min_messages;\nSET privrisk.release_index_scans = off;\n"
                f"SELECT 'rows ' || count(*) || ' ' || md5(coalesce(string_agg(v::text, '|' ORDER BY v.id), '')) "
                f"FROM (SELECT *, count(*) OVER (PARTITION BY {', '.join(rnd.qis)}) AS n FROM sr_plain_view) AS x, "
                f"LATERAL (SELECT x.id, x.a, x.b, x.c, x.g, x.s) AS v WHERE n >= {least};\n"
                "DROP VIEW sr_plain_view;\nSELECT privrisk.drop_policy('sr_plain', true);\n")
    out = psql(DB, sql).split("\n")
    released = [l for l in out if l.startswith("rows ")]
    replayed = [l.split(":")[1].strip() for l in out if "Suppression Rows Replayed" in l]
    where = f"seed {seed}, round {number}"
    workers = [l.split(":")[1].strip() for l in out if "Suppression Count Workers" in l]
    if len(released) != (4 if by_sql else 3) or len(replayed) != 3:
        fail(f"FAIL {where}: unexpected output\n" + "\n".join(out))
    if released[0] != released[1]:
        fail(f"FAIL {where}: the serial read (classes replayed) and the parallel read release other rows\n"
             f"policy: {rnd.describe()}\n  serial:   {released[0][:200]}\n  parallel: {released[1][:200]}")
    if replayed[0] != str(ROWS) or not any("Gather" in l for l in out) or replayed[1] != "0":
        fail(f"FAIL {where}: the serial read did not replay every row, or the parallel read was not parallel\n" +
             "\n".join(out))
    # Counted by workers (not with a sensitive column's histograms, which one process counts).
    if released[2] != released[0] or replayed[2] != str(ROWS):
        fail(f"FAIL {where}: the serial read after a count in parallel releases other rows, or replayed not every "
             f"row\npolicy: {rnd.describe()}\n  one process: {released[0][:200]}\n  in parallel: {released[2][:200]}\n"
             + "\n".join(out))
    if workers != ([] if rnd.sensitive else ["2"]):
        fail(f"FAIL {where}: the count was not shared by two workers (EXPLAIN: {workers})\n" + "\n".join(out))
    if by_sql and released[0] != released[3]:
        fail(f"FAIL {where}: a full read releases other rows than the SQL count of its classes\n"
             f"policy: {rnd.describe()}\n  release: {released[0][:200]}\n  SQL:     {released[3][:200]}")

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--seed", type=int, default=int(os.environ.get("PRIVRISK_SEED", "37")))
    p.add_argument("--rounds", type=int, default=12)
    p.add_argument("--queries", type=int, default=40)
    a = p.parse_args()
    started = time.time()
    fresh_database(DB)
    psql(DB, HIERARCHIES)
    by_class = suppressing = 0
    for number in range(a.rounds):
        c, s = run_round(a.seed, number, a.queries)
        by_class, suppressing = by_class + c, suppressing + s
    total = a.rounds * a.queries
    print(f"ok   {total} selective reads of {a.rounds} random suppressing releases (seed {a.seed}; {suppressing} "
          f"withhold rows): the same rows deciding by class as counting the whole source; {by_class} reads decided "
          f"by class ({time.time() - started:.0f} s)")
    if by_class < total // 4:
        fail(f"FAIL only {by_class} of {total} reads decided by class: the test no longer exercises it")
    if suppressing < a.rounds // 2:
        fail(f"FAIL only {suppressing} of {a.rounds} releases withhold any row: the comparisons say little")


if __name__ == "__main__":
    main()
