#!/usr/bin/env python3
"""A leaky function in WHERE on a release view sees only released values
(issue #35), with and without an index the scan may read the source through.

The attacker is a role that may read the release views only (lk_reader), and its
functions are what an attacker writes: plpgsql, not LEAKPROOF, COST
0.0000001 so the planner runs them before any other qual. lk_leak(id, value)
records its arguments in a table (VOLATILE); lk_notice(id, value) raises them in
a NOTICE (declared IMMUTABLE, which a planner may evaluate wherever it likes).
Each is called on an as-is column (zip), a generalized column (age, an
unconditional gen rule through a tree hierarchy, whose label predicate may use
the source's index on age), a hidden column (diagnosis, indexed) and a
conditionally hidden one (ward), in queries whose other quals can use an index
(id =, id BETWEEN, zip =, age label =, a join with keys) and in queries with none;
once with the index paths off and once on. Every (id, value) the function saw
must be a row of the release — never a raw age, diagnosis or ward it hides,
never a row that record suppression withholds — and it must have seen the rows
the query returns. The check itself is shown able to fail: the same function over
the source records raw values, which the check rejects."""
import os
import re
import subprocess
import sys

sys.dont_write_bytecode = True  # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import INDEX_SCANS_LANDED, fail, fresh_database, psql, set_index_scans  # noqa: E402
from hierarchies import HIERARCHY_SQL  # noqa: E402

DB = "privrisk_release_leaky"
failures = []


passed = []


def check(ok, what, quiet=False):
    """Prints a failure always, a success unless quiet (the many per-query checks are summed up)."""
    if ok and quiet:
        passed.append(what)
        return
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


SETUP = HIERARCHY_SQL + """
CREATE TABLE lk_source (id int PRIMARY KEY, age int, zip text, diagnosis text, ward text);
INSERT INTO lk_source
SELECT i, CASE WHEN i % 17 = 0 THEN NULL ELSE (i * 37) % 101 END,
       CASE WHEN i = 400 THEN '99999' ELSE '4790' || (i % 5) END,
       (ARRAY['flu', 'cold', 'asthma', 'diabetes', NULL])[1 + i % 5],
       'ward-' || (i % 7)
FROM generate_series(1, 400) AS i;
CREATE INDEX ON lk_source (age);
CREATE INDEX ON lk_source (zip);
CREATE INDEX ON lk_source (diagnosis);
CREATE INDEX ON lk_source (ward);
ANALYZE lk_source;
CREATE TABLE lk_keys (k int);
INSERT INTO lk_keys VALUES (3), (42), (77), (400), (1000);
SET client_min_messages = warning;
-- zip as it is; age generalized to its decade; diagnosis hidden; ward disclosed only in even rows.
SELECT privrisk.create_policy('lk_policy', 'lk_source');
SELECT privrisk.add_rule('lk_policy', 'age', 'gen', 'false', 'rs_num', 1);
SELECT privrisk.add_rule('lk_policy', 'diagnosis', 'hide', 'false');
SELECT privrisk.add_rule('lk_policy', 'ward', 'hide', 'id % 2 = 0');
SELECT privrisk.create_release_view('lk_policy', 'lk_view');
-- The same rules, and the rows of zips with fewer than 3 rows withheld (zip 99999: row 400).
SELECT privrisk.create_policy('lk_suppress', 'lk_source');
SELECT privrisk.add_rule('lk_suppress', 'age', 'gen', 'false', 'rs_num', 1);
SELECT privrisk.add_rule('lk_suppress', 'diagnosis', 'hide', 'false');
SELECT privrisk.add_rule('lk_suppress', 'ward', 'hide', 'id % 2 = 0');
SELECT privrisk.set_suppression('lk_suppress', ARRAY['zip'], '{"k": 3, "max_suppression": 0.5}');
SELECT privrisk.create_release_view('lk_suppress', 'lk_suppress_view');
RESET client_min_messages;
CREATE TABLE lk_seen (id int, value text);
-- The attacker: a role that may read the release views and the keys, and write lk_seen.
DROP ROLE IF EXISTS lk_reader;
CREATE ROLE lk_reader;
GRANT SELECT ON lk_view, lk_suppress_view, lk_keys TO lk_reader;
GRANT INSERT ON lk_seen TO lk_reader;
CREATE FUNCTION lk_leak(id int, value anyelement) RETURNS boolean LANGUAGE plpgsql COST 0.0000001 AS
$$ BEGIN INSERT INTO lk_seen VALUES (id, value::text); RETURN true; END $$;
CREATE FUNCTION lk_notice(id int, value anyelement) RETURNS boolean LANGUAGE plpgsql IMMUTABLE COST 0.0000001 AS
$$ BEGIN RAISE NOTICE 'seen %|%', id, coalesce(value::text, '<NULL>'); RETURN true; END $$;
"""

# Quals that an index of the source may serve, and none.
FILTERS = {
    "id = 42": "v.id = 42",
    "id BETWEEN 390 AND 400": "v.id BETWEEN 390 AND 400",
    "zip = '99999'": "v.zip = '99999'",
    "age label = '40-49'": "v.age = '40-49'",
    "age label IN": "v.age IN ('0-9', '90-99')",
    "diagnosis = 'flu' (hidden, indexed)": "v.diagnosis = 'flu'",
    "ward = 'ward-3' (conditionally hidden, indexed)": "v.ward = 'ward-3'",
    "no other qual": "true",
}
# Of these, the ones the index paths serve once they exist.
INDEXED = {"id = 42", "id BETWEEN 390 AND 400", "zip = '99999'", "age label = '40-49'", "age label IN"}


def released(view):
    """The release as (id, column) -> released text, and the ids of its rows."""
    out = psql(DB, f"SELECT id, coalesce(age, '<NULL>'), coalesce(zip, '<NULL>'), "
                   f"coalesce(diagnosis, '<NULL>'), coalesce(ward, '<NULL>') FROM {view};\n")
    rows = {}
    for line in out.splitlines():
        i, age, zip_, diagnosis, ward = line.split("\t")
        rows[int(i)] = {"age": age, "zip": zip_, "diagnosis": diagnosis, "ward": ward}
    return rows


def run_session(script):
    """Runs a script in one session; returns (stdout, stderr), each with the script's markers."""
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-F", "\t", "-v", "ON_ERROR_STOP=1", "-d", DB], input=script,
                       capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"FAIL psql: {r.stderr}")
    return r.stdout, r.stderr


def sections(text, marker):
    """{name: lines} for each `marker name` line of text and the lines up to the next marker."""
    out, name = {}, None
    for line in text.splitlines():
        if line.startswith("@@"):
            name = line[len(marker):] if line.startswith(marker) else None
            if name is not None:
                out[name] = []
        elif name is not None and line:
            out[name].append(line)
    return out


def leak_queries(view, on, queries, role="lk_reader"):
    """Runs each (name, select with {leak}) once with lk_leak (its calls read back from lk_seen) and
    once with lk_notice (its calls read from the NOTICEs); returns {name: (calls, returned ids)} for
    each, the names suffixed ' (table)' and ' (NOTICE)'."""
    script = [set_index_scans(on)]
    for name, select in queries:
        script.append(f"TRUNCATE lk_seen;\nSET ROLE {role};\n\\echo @@rows {name} (table)\n"
                      f"{select.format(leak='lk_leak')};\nRESET ROLE;\n"
                      f"\\echo @@seen {name} (table)\nSELECT id, coalesce(value, '<NULL>') FROM lk_seen;\n"
                      f"SET ROLE {role};\n\\echo @@rows {name} (NOTICE)\n\\warn @@seen {name} (NOTICE)\n"
                      f"{select.format(leak='lk_notice')};\nRESET ROLE;\n")
    out, err = run_session("".join(script))
    rows, seen = sections(out, "@@rows "), sections(out, "@@seen ")
    for name, lines in sections(err, "@@seen ").items():
        seen[name] = ["\t".join(m) for l in lines for m in re.findall(r"NOTICE:  seen (-?\d+|<NULL>)\|(.*)", l)]
    return {name: ([tuple(l.split("\t")) for l in seen[name]], [int(x) for x in rows[name]]) for name in rows}


def verify(what, pairs, returned_ids, release, column):
    bad = [(i, v) for i, v in pairs if i == "<NULL>" or int(i) not in release or release[int(i)][column] != v]
    check(not bad, f"{what}: the function saw only released (id, {column}) pairs"
          + (f"; saw {bad[:3]}" if bad else f" ({len(pairs)} calls)"), quiet=True)
    missing = set(returned_ids) - {int(i) for i, _ in pairs}
    check(not missing, f"{what}: the function saw every row the query returned"
          + (f"; missed ids {sorted(missing)[:5]}" if missing else ""), quiet=True)


def main():
    fresh_database(DB)
    psql(DB, SETUP)
    for view in ("lk_view", "lk_suppress_view"):
        release = released(view)
        if view == "lk_suppress_view":
            check(400 not in release, "record suppression withholds row 400 (zip 99999, a class of 1)")
        for on in (False, True):
            mode = "index paths on" if on else "index paths off"
            queries = [(f"WHERE {name}, leaking {column}",
                        f"SELECT v.id FROM {view} v WHERE {{leak}}(v.id, v.{column}) AND {qual}")
                       for name, qual in FILTERS.items() for column in ("zip", "age", "diagnosis", "ward")]
            # A join with keys: a parameterized path reads each key's row through the primary key.
            queries += [(f"JOIN keys ON id, leaking {column}", f"SELECT v.id FROM lk_keys k JOIN {view} v "
                         f"ON v.id = k.k WHERE {{leak}}(v.id, v.{column})") for column in ("age", "diagnosis")]
            for name, (pairs, returned) in leak_queries(view, on, queries).items():
                verify(f"{view}, {mode}, {name}", pairs, returned, release, name.split("leaking ")[1].split()[0])
            print(f"ok   {view}, {mode}: {len(passed)} checks, each query's calls of the leaky functions "
                  f"saw only released (id, value) pairs, and every row it returned", flush=True)
            passed.clear()
            if INDEX_SCANS_LANDED and on:
                for name, qual in FILTERS.items():
                    if name not in INDEXED:
                        continue
                    # On 400 rows a decade of ages is cheaper to read in full: the index is what is checked.
                    plan = psql(DB, set_index_scans(True) + "SET enable_seqscan = off;\nEXPLAIN (COSTS OFF) " +
                                f"SELECT v.id FROM {view} v WHERE lk_leak(v.id, v.age) AND {qual};\n")
                    cond = " ".join(l for l in plan.splitlines() if "Index Cond" in l)
                    check("Source Index" in plan and "lk_leak" not in cond,
                          f"{view}, WHERE {name}: read through a source index, the leaky function above it")
    # The check can fail: the same function over the source (no release, no security barrier) runs
    # first, on every row, and records raw diagnoses.
    source = leak_queries("lk_source", False, [
        ("the source", "SELECT v.id FROM lk_source v WHERE {leak}(v.id, v.diagnosis) AND v.id = 42")], role="postgres")
    pairs = source["the source (table)"][0]
    release = released("lk_view")
    bad = [(i, v) for i, v in pairs if release[int(i)]["diagnosis"] != v]
    check(("42", "asthma") in bad, f"over the source, the check rejects the {len(bad)} raw diagnoses recorded")
    if failures:
        print(f"{len(failures)} failed")
        sys.exit(1)


if __name__ == "__main__":
    main()
