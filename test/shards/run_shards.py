#!/usr/bin/env python3
"""The sharded warehouse test (docs/scale-out.md): one coordinator and 3 shard
clusters on loopback (scripts/shards), ARX's Adult extract hash-sharded by row
id into "adult" and copied whole into "adult_local" on the coordinator.

Checks: every function gives exactly the single-server answer on the sharded
table (a seeded dp_release too); the class GROUP BY with hist() is in each shard's Remote SQL and the
rows that cross the network are the shards' classes, not their rows, for classes() and for the analyst's
own GROUP BY gen(…) (plain and pinned hierarchies); a release
view over the shards gives the single-server release to an analyst with no
right on the source; a shard with another definition of a hierarchy or policy
fails naming it and the server.

    test/shards/run_shards.py [DIR]     (default /tmp/privrisk-shards-test; PRIVRISK_SHARDS_PORT, default 5541)

Exit 1 on any failure. Run by scripts/test; needs the extension installed."""
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DIR = sys.argv[1] if len(sys.argv) > 1 else "/tmp/privrisk-shards-test"
PORT = int(os.environ.get("PRIVRISK_SHARDS_PORT", "5541"))
SHARDS = 3

QI = "ARRAY['age', 'marital_status', 'race', 'sex']"
HIER = "ARRAY['age', 'marital', 'race', 'sex']"
LEVELS = "ARRAY[2, 1, 0, 0]"
MAPPING = """'[{"released": "age", "hierarchy": "age"}, {"released": "sex", "hierarchy": "sex"}]'"""
CLASSES = f"privrisk.classes('{{t}}', {QI}, {HIER}, {LEVELS}, 'occupation')"
LEVEL1 = (f"SELECT privrisk.hist(occupation) AS hist FROM {{t}} GROUP BY privrisk.gen(age, 'age', 2), "
          f"privrisk.gen(marital_status, 'marital', 1), race, sex")

# Each query runs with {t} = adult (sharded) and {t} = adult_local; the outputs must be equal.
SAME = {
    "level 1: classes()": f"SELECT class, hist FROM {CLASSES} ORDER BY class::text",
    "level 1: the analyst's GROUP BY": f"SELECT hist FROM ({LEVEL1}) c ORDER BY hist::text",
    "audit()": f"SELECT privrisk.audit('{{t}}', {QI}, 'occupation', {HIER}, {LEVELS}, '{{\"kmax\": 5}}')",
    "audit(), k only": f"SELECT privrisk.audit('{{t}}', {QI}, NULL, {HIER}, ARRAY[1, 1, 1, 1])",
    # An integer sensitive column, counted by its canonical text on each shard and here, and
    # found by that text in its hierarchy.
    "audit(), an integer sensitive": "SELECT privrisk.audit('{t}', ARRAY['marital_status', 'race', 'sex'], 'age', "
                                     "ARRAY['marital', 'race', 'sex'], ARRAY[1, 0, 0], '{\"t_hierarchy\": \"age\"}')",
    # The report without its timings and the source's name.
    "search()": f"SELECT (privrisk.search('{{t}}', {QI}, {HIER}, 'occupation', '{{\"k\": 5, \"l\": 2}}')) "
                "#- '{search,ms}' #- '{search,scan_ms}' #- '{source}'",
    "search() with suppression": f"SELECT (privrisk.search('{{t}}', {QI}, {HIER}, 'occupation', "
                                 "'{\"k\": 20, \"max_suppression\": 0.05}', 'entropy')) "
                                 "#- '{search,ms}' #- '{search,scan_ms}' #- '{source}'",
    "lattice()": f"SELECT privrisk.lattice('{{t}}', ARRAY['age', 'sex'], ARRAY['age', 'sex'], 'occupation', "
                 f"'{{\"k\": 5}}')",
    "match_counts": f"SELECT * FROM privrisk.match_counts('{{t}}', 'people', {MAPPING}, levels => ARRAY[1, 0]) "
                    f"ORDER BY released_values",
    "entropies": "SELECT privrisk.entropy(occupation), privrisk.conditional_entropy(occupation, sex), "
                 "privrisk.mutual_information(education, salary_class), privrisk.entropy_bits(race) FROM {t}",
    "askari_utility": f"SELECT privrisk.askari_utility('{{t}}', {QI}, {HIER}, {LEVELS})",
}
# A seeded release depends on the rows' values only (docs/dp.md): the same classes, counts and output order.
DP_SAFEPUB = (f"privrisk.dp_release('{{t}}', {QI}, {HIER}, 1, 1e-3, levels => {LEVELS}, seed => 42, output => 'classes') "
              "AS (a text, m text, r text, s text, n bigint)")
SAME["dp_release, seeded (safepub)"] = (f"SELECT string_agg(concat_ws('|', a, m, r, s, n), ',' ORDER BY i) "
                                        f"FROM ROWS FROM ({DP_SAFEPUB}) WITH ORDINALITY AS x(a, m, r, s, n, i)")
SAME["dp_release, seeded (fouad)"] = (
    "SELECT string_agg(concat_ws('|', a, s, n), ',' ORDER BY i) FROM ROWS FROM (privrisk.dp_release('{t}', "
    "ARRAY['age', 'sex'], ARRAY['age', 'sex'], 1, 1e-3, mechanism => 'fouad', drop_probability => 0.5, seed => 3, "
    "output => 'classes') AS (a text, s text, n bigint)) WITH ORDINALITY AS x(a, s, n, i)")
MEASURES = ["k_anonymity", "l_diversity", "t_closeness", "average_risk", "prosecutor_risk", "a_acc", "a_know",
            "delta_disclosure", "information_gain"]
SAME["every level-2 measure"] = "SELECT " + ", ".join(f"privrisk.{m}(hist)" for m in MEASURES) + (
    ", privrisk.l_diversity(hist, 'entropy'), privrisk.l_diversity(hist, 'recursive', 3), "
    "privrisk.records_at_risk(hist, 0.2), privrisk.ck_disclosure_curve(hist, 5), privrisk.ck_safe(hist, 0.8, 2), "
    f"privrisk.neg_disclosure_curve(hist, 3) FROM {CLASSES}")


def shards(*args):
    env = dict(os.environ)
    return subprocess.run([os.path.join(ROOT, "scripts", "shards"), args[0], DIR] + list(args[1:]), env=env,
                          cwd=ROOT, capture_output=True, text=True)


def on(port, sql):
    r = subprocess.run(["psql", "-X", "-At", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(port), "-U",
                        "postgres", "-d", "privrisk", "-c", sql], capture_output=True, text=True, cwd=ROOT)
    return r.returncode, r.stdout.strip(), r.stderr.strip()


def coordinator(sql):
    return on(PORT, sql)


def sharded_and_local(name, columns, rows, *more):
    """A table `name` hash-partitioned over the shards and `name`_local on the coordinator, both
    holding `rows` (a query), then the statements `more`. True and '' when all went well, else
    False and what failed."""
    r = shards("table", name, columns)
    failed = [r.stderr] if r.returncode != 0 else []
    for sql in (f"INSERT INTO {name} {rows}", f"CREATE TABLE {name}_local AS SELECT * FROM {name}") + more:
        code, _, err = coordinator(sql)
        if code != 0:
            failed.append(err)
    return not failed, "\n".join(failed)


def main():
    failures, passed = [], 0

    def check(name, ok, detail=""):
        nonlocal passed
        if ok:
            passed += 1
        else:
            failures.append(f"{name}: {detail}")

    r = shards("start", "--shards", str(SHARDS), "--port", str(PORT))
    if r.returncode != 0:
        print(r.stdout + r.stderr, file=sys.stderr)
        return 1
    try:
        for step in (("each", "test/shards/hierarchies.psql"),
                     ("table", "adult", "id bigint, sex text, age text, race text, marital_status text, education text, "
                                        "native_country text, workclass text, occupation text, salary_class text")):
            r = shards(*step)
            if r.returncode != 0:
                print(r.stdout + r.stderr, file=sys.stderr)
                return 1
        r = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p", str(PORT), "-U",
                            "postgres", "-d", "privrisk", "-f", "test/shards/adult.psql"], cwd=ROOT,
                           capture_output=True, text=True)
        if r.returncode != 0:
            print(r.stderr, file=sys.stderr)
            return 1
        rows = [int(on(PORT + i, "SELECT count(*) FROM adult")[1]) for i in range(1, SHARDS + 1)]
        check("the rows are spread over the shards", all(n > 5000 for n in rows) and sum(rows) == 30162, str(rows))

        code, out, err = coordinator("SELECT privrisk.set_budget('adult', 100, 0.5), privrisk.set_budget('adult_local', 100, 0.5)")
        check("budgets for the releases", code == 0, err)
        for name, sql in SAME.items():
            a = coordinator(sql.replace("{t}", "adult"))
            b = coordinator(sql.replace("{t}", "adult_local"))
            check(name, a[0] == 0 and a == b and a[1] != "",
                  f"sharded:\n{a[1][:600]}{a[2]}\nlocal:\n{b[1][:600]}{b[2]}")

        # What crosses the network: one grouped query per shard, the classes it returns.
        sql = coordinator(f"SELECT privrisk.classes_sql('adult', {QI}, {HIER}, {LEVELS}, 'occupation')")[1]
        plan = coordinator("EXPLAIN (VERBOSE, COSTS OFF) " + sql)[1]
        remote = [line.strip() for line in plan.split("\n") if "Remote SQL:" in line]
        check("each shard's Remote SQL groups by the class with hist()",
              len(remote) == SHARDS and all("privrisk.hist(occupation)" in x and "GROUP BY 1, 2, 3, 4" in x and
                                            "privrisk.gen(age, 'age@" in x for x in remote), plan)
        check("the shards run concurrently (async Append)", plan.count("Async Foreign Scan") == SHARDS, plan)
        analyzed = json.loads(coordinator("EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) " + sql)[1])
        moved = []

        def walk(node):
            if node.get("Node Type") == "Foreign Scan":
                moved.append(node["Actual Rows"])
            for child in node.get("Plans", []):
                walk(child)

        walk(analyzed[0]["Plan"])
        classes_here = coordinator("SELECT count(*) FROM (SELECT 1 FROM adult_local GROUP BY privrisk.gen(age, 'age', 2), "
                                   "privrisk.gen(marital_status, 'marital', 1), race, sex) c")[1]
        per_shard = [int(on(PORT + i, "SELECT count(*) FROM (SELECT 1 FROM adult GROUP BY privrisk.gen(age, 'age', 2), "
                                      "privrisk.gen(marital_status, 'marital', 1), race, sex) c")[1])
                     for i in range(1, SHARDS + 1)]
        check("the rows moved are each shard's classes", sorted(moved) == sorted(per_shard) and sum(moved) < 1000,
              f"moved {moved}, classes per shard {per_shard}, rows per shard {rows}")
        # The analyst's own GROUP BY (partitioned by id, which is not in the class key): each shard runs the
        # grouped query with hist(), with the hierarchy named (sent pinned) or pinned, and its classes come back.
        pins = {h: coordinator(f"SELECT privrisk.pin_hierarchy('{h}')")[1] for h in ("age", "marital")}
        pinned = (f"SELECT privrisk.hist(occupation) AS hist FROM {{t}} GROUP BY privrisk.gen(age, "
                  f"'{pins['age']}'::privrisk.pinned_hierarchy, 2), privrisk.gen(marital_status, "
                  f"'{pins['marital']}'::privrisk.pinned_hierarchy, 1), race, sex")
        for form, query in (("plain", LEVEL1), ("pinned", pinned)):
            a = coordinator(f"SELECT hist FROM ({query.replace('{t}', 'adult')}) c ORDER BY hist::text")
            b = coordinator(f"SELECT hist FROM ({query.replace('{t}', 'adult_local')}) c ORDER BY hist::text")
            check(f"the analyst's GROUP BY ({form} form) over shards gives the single-server classes",
                  a[0] == 0 and a == b and len(a[1].splitlines()) == int(classes_here), f"{a[1][:300]}{a[2]}")
            plan = coordinator("EXPLAIN (VERBOSE, COSTS OFF) " + query.replace("{t}", "adult"))[1]
            remote = [line.strip() for line in plan.split("\n") if "Remote SQL:" in line]
            check(f"the analyst's GROUP BY ({form} form) has hist() in each shard's Remote SQL",
                  "Custom Scan (PrivriskShardGrouping)" in plan and len(remote) == SHARDS and
                  all("privrisk.hist(occupation)" in x and "GROUP BY 1, 2, 3, 4" in x and
                      f"privrisk.gen(age, '{pins['age']}@shard" in x for x in remote), plan)
            analyzed = json.loads(coordinator("EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) " +
                                              query.replace("{t}", "adult"))[1])[0]["Plan"]
            check(f"the analyst's GROUP BY ({form} form) moves each shard's classes, not its rows",
                  analyzed.get("Custom Plan Provider") == "PrivriskShardGrouping" and
                  analyzed.get("Rows Received") == sum(per_shard) and sum(per_shard) < 1000,
                  f"{analyzed.get('Rows Received')} received, classes per shard {per_shard}")
        # Counts, hist(*), a WHERE the shards apply, a HAVING applied here; and a pin that is not this
        # server's definition fails as gen() through it fails here.
        counted = ("SELECT race, count(*), count(workclass), privrisk.hist(*) FROM {t} WHERE sex = 'Male' "
                   "AND age <> '17' GROUP BY race HAVING count(*) > 50 ORDER BY 1")
        # (LOAD: no gen() in the query to load privrisk while it is planned; psql prints LOAD's tag)
        a = coordinator("LOAD 'privrisk'; " + counted.format(t="adult"))
        b = coordinator(counted.format(t="adult_local"))
        plan = coordinator("LOAD 'privrisk'; EXPLAIN (VERBOSE, COSTS OFF) " + counted.format(t="adult"))[1]
        remote = [line for line in plan.split("\n") if "Remote SQL:" in line]
        check("counts and hist(*) under a WHERE and a HAVING over shards: the single-server answer, "
              "the WHERE sent to each shard",
              a[0] == 0 and a[1].removeprefix("LOAD\n") == b[1] and len(b[1].splitlines()) >= 3 and
              len(remote) == SHARDS and all("(sex = 'Male')" in x and "(age <> '17')" in x and "privrisk.hist(*)" in x
                                            for x in remote), f"{a}\n{b}\n{plan}")
        # The entropies over the shards: each shard sends its counts (value_counts), one row, merged here.
        # (LOAD: no gen() in these queries to load privrisk while they are planned; psql prints LOAD's tag)
        entropies = "LOAD 'privrisk'; " + SAME["entropies"].replace("{t}", "adult")
        plan = coordinator("LOAD 'privrisk'; EXPLAIN (VERBOSE, COSTS OFF) " + SAME["entropies"].replace("{t}", "adult"))[1]
        remote = [line for line in plan.split("\n") if "Remote SQL:" in line]
        check("the entropies over shards send each shard's counts",
              "PrivriskShardGrouping" in plan and len(remote) == SHARDS and
              all("privrisk.value_counts(occupation), privrisk.value_counts(occupation, sex), "
                  "privrisk.value_counts(education, salary_class), privrisk.value_counts(race) FROM public.adult" in x
                  for x in remote), plan)
        analyzed = json.loads(coordinator("LOAD 'privrisk'; EXPLAIN (ANALYZE, VERBOSE, FORMAT JSON) " +
                                          SAME["entropies"].replace("{t}", "adult"))[1].removeprefix("LOAD\n"))[0]["Plan"]
        a, b = coordinator(entropies), coordinator(SAME["entropies"].replace("{t}", "adult_local"))
        check("the entropies over shards, pushed down: the single-server numbers", a[0] == 0 and
              a[1].removeprefix("LOAD\n") == b[1], f"{a}\n{b}")
        check("the entropies over shards move one row per shard", analyzed.get("Rows Received") == SHARDS,
              str(analyzed.get("Rows Received")))
        # No row at all: NULL, as one server gives; and count(*) gives 0.
        none = ("SELECT privrisk.entropy(occupation), privrisk.mutual_information(race, sex), count(*), "
                "privrisk.hist(*) FROM {t} WHERE age = 'none'")
        a, b = coordinator("LOAD 'privrisk'; " + none.format(t="adult")), coordinator(none.format(t="adult_local"))
        plan = coordinator("LOAD 'privrisk'; EXPLAIN (COSTS OFF) " + none.format(t="adult"))[1]
        check("an aggregate of no row over shards: the single-server answer",
              a[0] == 0 and a[1].removeprefix("LOAD\n") == b[1] and b[1].startswith("||0|") and
              "PrivriskShardGrouping" in plan, f"{a}\n{b}\n{plan}")
        # The leaves the planner keeps: a WHERE on the partition key prunes the others.
        plan = coordinator("EXPLAIN (VERBOSE, COSTS OFF) " + LEVEL1.replace("{t}", "adult").replace(
            " GROUP BY", " WHERE id = 5 GROUP BY"))[1]
        check("the analyst's GROUP BY asks only the shards the planner keeps",
              "Leaves: 1" in plan and plan.count("Remote SQL:") == 1, plan)
        # privrisk.shard_grouping = off, or a hierarchy that does not exist here: PostgreSQL's own plan.
        for setting, query in (("SET privrisk.shard_grouping = off; ", LEVEL1),
                               ("", LEVEL1.replace("'marital', 1", "'no_such_hierarchy', 1"))):
            plan = coordinator(setting + "EXPLAIN (COSTS OFF) " + query.replace("{t}", "adult"))[1]
            check(f"PostgreSQL's own plan for the analyst's GROUP BY: {setting or 'a hierarchy missing here'}",
                  "PrivriskShardGrouping" not in plan and "Async Foreign Scan" in plan, plan)
        stale = pinned.replace(pins["age"], "age@0000000000000000").format(t="adult")
        a, b = coordinator(stale), coordinator(stale.replace("FROM adult ", "FROM adult_local "))
        check("a pin that is not this server's definition fails over shards as here",
              a[0] != 0 and a[2] == b[2] and 'hierarchy "age" is not the one pinned' in a[2], f"{a}\n{b}")
        # dp_release counts on the shards: what arrives is their classes, every row counted in them.
        code, out, err = coordinator("SET client_min_messages = debug1; SELECT count(*) FROM " +
                                     DP_SAFEPUB.replace("{t}", "adult"))
        # (the shards' classes merged by class_query, the query whose moved rows are checked above)
        classes = coordinator("SELECT count(*) FROM (SELECT 1 FROM adult_local GROUP BY privrisk.gen(age, 'age', 2), "
                              "privrisk.gen(marital_status, 'marital', 1), race, sex) c")[1]
        want = f"dp_release: 30162 rows counted from {classes} classes sent by the shards"
        check("dp_release counts the shards' classes, not their rows", code == 0 and want in err, f"want {want}: {err}")
        # A type whose SQL equality is coarser than its text (0 = -0, 1.0 = 1.00) is counted here, from the
        # rows: a shard's GROUP BY would merge values the release tells apart.
        made, setup_error = sharded_and_local(
            "nums", "id bigint, x float8, y numeric",
            "SELECT g, CASE WHEN g % 2 = 0 THEN 0::float8 ELSE '-0'::float8 END, "
            "CASE WHEN g % 3 = 0 THEN 1.0 ELSE 1.00 END FROM generate_series(1, 3000) g",
            "SELECT privrisk.set_budget('nums', 10, 0.5), privrisk.set_budget('nums_local', 10, 0.5)")
        q = ("SELECT string_agg(concat_ws('|', x, y, n), ',' ORDER BY i) FROM ROWS FROM (privrisk.dp_release('{t}', "
             "ARRAY['x', 'y'], ARRAY[NULL, NULL], 1, 1e-3, levels => ARRAY[0, 0], seed => 5, output => 'classes') "
             "AS (x text, y text, n bigint)) WITH ORDINALITY AS r(x, y, n, i)")
        a = coordinator("SET client_min_messages = debug1; " + q.format(t="nums"))
        b = coordinator(q.format(t="nums_local"))
        check("dp_release counts float and numeric classes from rows, as one server does",
              made and a[0] == 0 and a[1].splitlines()[-1] == b[1] and b[1].count(",") == 3 and
              "rows read here" in a[2], f"{a}\n{b}\n{setup_error}")
        # The same for classes(), audit() and search(): float and numeric keys are grouped here.
        sql = coordinator("SELECT privrisk.classes_sql('nums', ARRAY['x', 'y'], NULL, NULL, NULL)")[1]
        check("classes() groups float and numeric keys here, not on the shards",
              "UNION ALL" not in sql and "FROM public.nums GROUP BY" in sql, sql)
        for name, q in (("audit()", "SELECT privrisk.audit('{t}', ARRAY['x', 'y'], NULL, ARRAY[NULL, NULL]::text[], "
                                    "ARRAY[0, 0])"),
                        ("search()", "SELECT (privrisk.search('{t}', ARRAY['x', 'y'], ARRAY[NULL, NULL]::text[], NULL, "
                                     "'{{\"k\": 2}}')) #- '{{search,ms}}' #- '{{search,scan_ms}}' #- '{{source}}'")):
            a, b = coordinator(q.format(t="nums")), coordinator(q.format(t="nums_local"))
            check(f"{name} over float and numeric keys gives the single-server answer", a[0] == 0 and a == b and
                  '"classes": 4' in a[1], f"{a}\n{b}")
        # A shard whose class tally passes its privrisk.audit_memory_limit: search() reads that read's
        # classes with the spilling GROUP BY instead, and answers as one server does.
        made, setup_error = sharded_and_local(
            "wide", 'id bigint, k text COLLATE "C", s text, k2 text COLLATE "POSIX"',
            "SELECT g, md5(g::text), (g % 3)::text, md5((g % 1000)::text) FROM generate_series(1, 90000) g")
        on(PORT + 1, "ALTER DATABASE privrisk SET privrisk.audit_memory_limit = '1MB'")
        q = ("SELECT (privrisk.search('{t}', ARRAY['k'], ARRAY[NULL]::text[], 's', '{{\"k\": 1}}')) "
             "#- '{{search,ms}}' #- '{{search,scan_ms}}' #- '{{search,scan_workers}}' #- '{{source}}'")
        a, b = coordinator(q.format(t="wide")), coordinator(q.format(t="wide_local"))
        on(PORT + 1, "ALTER DATABASE privrisk RESET privrisk.audit_memory_limit")
        check("search() over a shard whose class tally passes its limit: the spilling GROUP BY, the same answer",
              made and a[0] == 0 and a[1] == b[1] and '"classes": 90000' in a[1] and
              "class tally passed its privrisk.audit_memory_limit" in a[2], f"{a}\n{b}\n{setup_error}")
        # audit() with a hierarchy, its merged level-0 tallies past this server's limit: the spilling
        # GROUP BY over the shards' level-0 classes, each value joined to its generalization (no gen()).
        coordinator("SELECT privrisk.prefix_hierarchy('wide_k', 32)")
        def spilled_as_local(q):
            """q on wide past the coordinator's 1 MB limit equals q on wide_local; (ok, detail)."""
            a = coordinator("SET privrisk.audit_memory_limit = '1MB'; SET client_min_messages = debug1; "
                            + q.format(t="wide"))
            b = coordinator(q.format(t="wide_local"))
            return (made and a[0] == 0 and a[1].splitlines()[-1] == b[1] and '"k_anonymity"' in b[1] and
                    "(spilling GROUP BY" in a[2]), f"{a}\n{b}"

        check("audit() with a hierarchy over shards past its limit: the spilling GROUP BY, the single-server answer",
              *spilled_as_local("SELECT privrisk.audit('{t}', ARRAY['k'], 's', ARRAY['wide_k'], ARRAY[30])"))
        # Two hierarchy columns of two collations ("C", "POSIX"): their distinct values are read byte for
        # byte, in one query (implicit collations that differ would conflict there).
        check("audit() over shards past its limit, two hierarchy columns of different collations: one answer",
              *spilled_as_local("SELECT privrisk.audit('{t}', ARRAY['k', 'k2'], 's', ARRAY['wide_k', 'wide_k'], "
                                "ARRAY[31, 30])"))
        audit_rows = coordinator(f"SELECT (privrisk.audit('adult', {QI}, 'occupation', {HIER}, {LEVELS})->>'rows')")[1]
        check("audit() counts every row through the classes", audit_rows == "30162", audit_rows)
        # audit() sends each shard one class_tally (a row per shard, its classes inside).
        plan = coordinator("EXPLAIN (VERBOSE, COSTS OFF) SELECT privrisk.class_tally(occupation, race, sex) FROM adult_shard1")[1]
        check("class_tally is shipped to the shard",
              "Remote SQL: SELECT privrisk.class_tally(occupation, race, sex) FROM public.adult" in plan, plan)
        # A boolean sensitive column: each shard tallies its canonical text (t, f; ::text says true, false),
        # which a hierarchy of t and f finds, as on one server.
        made, setup_error = sharded_and_local(
            "flags", "id bigint, grp text, ill boolean",
            "SELECT g, (g % 5)::text, CASE WHEN g % 7 = 0 THEN NULL ELSE g % 3 = 0 END FROM generate_series(1, 3000) g",
            "SELECT privrisk.load_hierarchy('ill', E't;*\\nf;*')")
        q = "SELECT privrisk.audit('{t}', ARRAY['grp'], 'ill', NULL, NULL, '{{\"t_hierarchy\": \"ill\"}}')"
        a = coordinator("SET client_min_messages = debug1; " + q.format(t="flags"))
        b = coordinator(q.format(t="flags_local"))
        check("audit() of a boolean sensitive column over shards: their tallies of t and f, as one server counts",
              made and a[0] == 0 and a[1].splitlines()[-1] == b[1] and '"t_hierarchical"' in b[1] and
              "(class tallies," in a[2], f"{a}\n{b}\n{setup_error}")
        # Shards whose columns have other binary forms (n is bigint on shard 2, int elsewhere): their
        # tallies are runs sorted by the values' texts, so a class met on every shard merges into one,
        # for audit() (classes) and search() (classes with their keys) alike.
        made, setup_error = sharded_and_local(
            "mixed", "id bigint, n int, g text, s text",
            "SELECT g, g % 37 - 5, (g % 4)::text, (g % 6)::text FROM generate_series(1, 6000) g")
        altered = on(PORT + 2, "ALTER TABLE mixed ALTER COLUMN n TYPE bigint")
        q = "SELECT privrisk.audit('{t}', ARRAY['n', 'g'], 's')"
        a = coordinator("SET client_min_messages = debug1; " + q.format(t="mixed"))
        b = coordinator(q.format(t="mixed_local"))
        check("audit() over shards whose key column is int on some and bigint on another: one server's classes",
              made and altered[0] == 0 and a[0] == 0 and a[1].splitlines()[-1] == b[1] and
              '"classes": 148' in b[1] and "(class tallies," in a[2], f"{a}\n{b}\n{setup_error}\n{altered}")
        q = ("SELECT privrisk.search('{t}', ARRAY['n', 'g'], ARRAY[NULL, NULL]::text[], 's', '{{\"k\": 1}}') "
             "#- '{{search}}' #- '{{source}}'")
        a, b = coordinator(q.format(t="mixed")), coordinator(q.format(t="mixed_local"))
        check("search() over shards whose key column is int on some and bigint on another: one server's answer",
              made and a[0] == 0 and a[1] == b[1] and '"classes": 148' in b[1], f"{a}\n{b}")
        code, out, err = coordinator(f"SET client_min_messages = debug1; SELECT (privrisk.audit('adult', {QI}, 'occupation', "
                                     f"{HIER}, {LEVELS})->>'rows')")
        check("audit() over shards reads their class tallies", code == 0 and "(class tallies," in err, err)

        # A release over shards: each shard's release view runs the rules on its rows, the
        # coordinator's view reads them (the same statements on every server, test/shards/release.psql).
        r = shards("each", "test/shards/release.psql")
        check("the policy and release views are created on every server", r.returncode == 0, r.stdout + r.stderr)
        tables = coordinator("SELECT string_agg(relname, ', ' ORDER BY relname) FROM pg_class "
                             "WHERE relname LIKE 'adult\\_public\\_%' AND relkind = 'f'")[1]
        check("one foreign table per shard reads its release view",
              tables == ", ".join(f"adult_public_{i}" for i in range(1, SHARDS + 1)), tables)
        for sql in ("SELECT count(*) FROM adult_public", "SELECT * FROM adult_public WHERE id IS NULL"):
            code, out, err = coordinator(sql)
            check(f"a shard refuses a role that may read its source, before any row ({sql})",
                  code != 0 and 'is read by a role that may read its source' in err, err)
        setup = ["CREATE ROLE adult_publisher", "CREATE ROLE adult_analyst",
                 "ALTER VIEW adult_public OWNER TO adult_publisher",
                 f"GRANT SELECT ON {tables} TO adult_publisher", "GRANT SELECT ON adult_public TO adult_analyst",
                 "SELECT privrisk.create_policy('adult_local_release', 'adult_local')",
                 "SELECT privrisk.add_rule('adult_local_release', 'age', 'gen', $$race = 'White'$$, 'age', 1)",
                 "SELECT privrisk.add_rule('adult_local_release', 'marital_status', 'gen', 'false', 'marital', 1)",
                 "SELECT privrisk.add_rule('adult_local_release', 'occupation', 'hide', $$salary_class = '>50K'$$)",
                 "SELECT privrisk.create_release_view('adult_local_release', 'adult_local_public')"]
        setup += [f"CREATE USER MAPPING FOR adult_publisher SERVER shard{i} OPTIONS (user 'adult_reader', "
                  "password_required 'false')" for i in range(1, SHARDS + 1)]
        for sql in setup:
            code, out, err = coordinator(sql)
            check(f"setup: {sql}", code == 0, err)
        digest = "SELECT md5(string_agg(r::text, ',' ORDER BY r.id)), count(*), count(r.occupation) FROM {v} r"
        a = coordinator("SET ROLE adult_analyst; " + digest.format(v="adult_public"))
        b = coordinator(digest.format(v="adult_local_public"))
        last = a[1].splitlines()[-1] if a[1] else ""
        check("the release view over the shards gives the single-server release", a[0] == 0 and last == b[1]
              and last.split("|")[1] == "30162" and 0 < int(last.split("|")[2]) < 30162, f"{a}\n{b}")
        a = coordinator("SET ROLE adult_analyst; SELECT count(*) FROM adult")
        b = coordinator("SELECT count(*) FROM pg_user_mappings WHERE usename = 'adult_analyst'")
        check("the analyst has no right on the source and no user mapping", a[0] != 0 and
              "permission denied for table adult" in a[2] and b[1] == "0", f"{a} {b}")
        plan = coordinator("EXPLAIN (VERBOSE, COSTS OFF) SELECT * FROM adult_public")[1]
        remote = [line.strip() for line in plan.split("\n") if "Remote SQL:" in line]
        check("each shard reads its release view, with the pinned policy, at the same time",
              len(remote) == SHARDS and plan.count("Async Foreign Scan") == SHARDS and
              all("FROM public.adult_public WHERE (privrisk.release_is_pinned(id, 'adult_release@" in x for x in remote),
              plan)
        # A shard relation that joins the release with the table is refused before any row.
        on(PORT + 1, "CREATE VIEW adult_join AS SELECT r.id, r.sex, r.age, r.race, r.marital_status, r.education, "
                     "r.native_country, r.workclass, a.occupation, r.salary_class FROM privrisk.release('adult_release') "
                     "AS r(id bigint, sex text, age text, race text, marital_status text, education text, "
                     "native_country text, workclass text, occupation text, salary_class text) JOIN adult a USING (id)")
        on(PORT + 1, "GRANT SELECT ON adult_join TO adult_reader")
        coordinator("ALTER FOREIGN TABLE adult_public_1 OPTIONS (SET table_name 'adult_join')")
        code, out, err = coordinator("SET ROLE adult_analyst; SELECT count(occupation) FROM adult_public")
        coordinator("ALTER FOREIGN TABLE adult_public_1 OPTIONS (SET table_name 'adult_public')")
        # adult_join is no release view of the policy: its reader may not read the release at all.
        check("a shard relation joining the release with the table is refused",
              code != 0 and 'policy "adult_release" does not exist or you may not read its release' in err, err)
        # A shard whose policy reads another table (same rules, same view) fails too: the pin names
        # the table the partition reads there.
        rules = open(os.path.join(ROOT, "test/shards/release.psql")).read().split("\n")
        moved = "\n".join(line.replace("'adult')", "'adult_archive')") for line in rules
                          if "CREATE ROLE" not in line)
        for sql in ("SELECT privrisk.drop_policy('adult_release', cascade => true)", "DROP VIEW IF EXISTS adult_public",
                    "CREATE TABLE adult_archive AS SELECT * FROM adult LIMIT 10", moved):
            on(PORT + 3, sql)
        code, out, err = coordinator("SET ROLE adult_analyst; SELECT count(*) FROM adult_public")
        check("a shard whose policy reads another table is an error naming the policy and the server",
              code != 0 and 'policy "adult_release" on server "shard3" is not the one pinned' in err, err)
        for sql in ("SELECT privrisk.drop_policy('adult_release', cascade => true)", "DROP VIEW IF EXISTS adult_public",
                    "\n".join(line for line in rules if "CREATE ROLE" not in line)):
            on(PORT + 3, sql)
        code, out, err = coordinator("SET ROLE adult_analyst; SELECT count(*) FROM adult_public")
        check("the shard's policy on its table again: the release reads", code == 0 and out.endswith("30162"), err)
        # Safe by default on a shard: a column labelled there since the view was made is NULL in the
        # shard's release, and the coordinator's pin (its digest holds the columns hidden by default)
        # refuses that shard until the servers agree again.
        on(PORT + 2, "SECURITY LABEL FOR privrisk ON COLUMN adult.sex IS 'quasi_identifier'")
        code, out, err = on(PORT + 2, "SELECT count(*) > 0, count(sex) FROM adult_public")
        check("a shard's release gives a column labelled there since as NULL", code == 0 and out == "t|0", f"{out} {err}")
        code, out, err = coordinator("SET ROLE adult_analyst; SELECT count(*) FROM adult_public")
        check("the coordinator refuses a shard whose labels hide another column",
              code != 0 and 'policy "adult_release" on server "shard2" is not the one pinned' in err, err)
        on(PORT + 2, "SECURITY LABEL FOR privrisk ON COLUMN adult.sex IS NULL")
        code, out, err = coordinator("SET ROLE adult_analyst; SELECT count(*) FROM adult_public")
        check("the label taken off the shard again: the release reads", code == 0 and out.endswith("30162"), err)
        on(PORT + 2, "SELECT privrisk.add_rule('adult_release', 'sex', 'hide', 'false')")
        for sql in ("SELECT count(*) FROM adult_public", "SELECT count(*) FROM adult_public WHERE occupation IS NULL"):
            code, out, err = coordinator("SET ROLE adult_analyst; " + sql)
            check(f"a shard with another policy is an error naming the policy and the server ({sql})",
                  code != 0 and 'policy "adult_release" on server "shard2" is not the one pinned' in err, err)
        # A policy with a view over shards drops only with it: no view outlives its policy.
        code, out, err = coordinator("SELECT privrisk.drop_policy('adult_release')")
        check("a policy with a view over shards is not dropped alone",
              code != 0 and "because its release views depend on it: public.adult_public" in err, err)
        coordinator("SELECT privrisk.drop_policy('adult_release', cascade => true)")
        code, out, err = coordinator("SET ROLE adult_analyst; SELECT count(*) FROM adult_public")
        check("dropped with its policy, the view over shards is gone",
              code != 0 and 'relation "adult_public" does not exist' in err, err)

        # Pseudonyms over shards: each shard's policy would have its own key, so one value would
        # get a pseudonym per shard; create_release_view refuses, saying so.
        for sql in ("SELECT privrisk.create_policy('adult_pseud', 'adult')",
                    "SELECT privrisk.add_rule('adult_pseud', 'native_country', 'pseudonymize')"):
            code, out, err = coordinator(sql)
            check(f"setup: {sql}", code == 0, err)
        code, out, err = coordinator("SELECT privrisk.create_release_view('adult_pseud', 'adult_pseud_public')")
        check("a pseudonymizing policy over shards is refused, saying why",
              code != 0 and "each shard's policy has its own pseudonym key" in err, err)
        coordinator("SELECT privrisk.drop_policy('adult_pseud')")

        # A shard with another definition of a hierarchy: an error naming both.
        on(PORT + 2, "SELECT privrisk.load_hierarchy('sex', E'Male;*\\nFemale;*\\nOther;*', replace => true)")
        code, out, err = coordinator("SELECT count(*) FROM " + CLASSES.replace("{t}", "adult"))
        check("a different hierarchy on a shard is an error naming it and the server",
              code != 0 and 'hierarchy "sex" on server "shard2" is not the one pinned' in err, err)
        # audit() reads the shards' level-0 classes and generalizes here, by this server's definitions.
        audit = f"SELECT privrisk.audit('{{t}}', {QI}, 'occupation', {HIER}, {LEVELS})"
        a, b = coordinator(audit.format(t="adult")), coordinator(audit.format(t="adult_local"))
        check("audit() generalizes here: a shard's other definition does not change it", a[0] == 0 and a == b, f"{a}\n{b}")
        by_sex = "SELECT privrisk.hist(occupation) FROM adult GROUP BY privrisk.gen(sex, 'sex', 1)"
        code, out, err = coordinator(by_sex)
        check("the analyst's GROUP BY refuses it too",
              code != 0 and 'hierarchy "sex" on server "shard2" is not the one pinned' in err, err)
        on(PORT + 2, "SELECT privrisk.drop_hierarchy('sex')")
        code, out, err = coordinator("SELECT count(*) FROM " + CLASSES.replace("{t}", "adult"))
        check("a hierarchy missing on a shard is an error naming the server",
              code != 0 and 'hierarchy "sex" does not exist on server "shard2"' in err, err)
        code, out, err = coordinator(by_sex)
        check("the analyst's GROUP BY too", code != 0 and 'hierarchy "sex" does not exist on server "shard2"' in err,
              err)
    finally:
        shards("stop")
    for f in failures:
        print("FAILED " + f, file=sys.stderr)
    print(f"shards: {passed} checks passed, {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
