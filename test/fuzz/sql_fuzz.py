#!/usr/bin/env python3
"""Fuzz targets for the parsers that live inside PostgreSQL, where libFuzzer
cannot reach them in process: rule-condition text (PostgreSQL's parser, then
privrisk's binding and checks), the jsonb options, constraints, thresholds and
search results of audit/search/lattice/create_profile/apply_generalization,
and the jsonb mappings of identification. Each input goes to a running server
(scripts/fuzz starts one with the sanitized module) through libpq, as a role
that owns the tables and nothing else, inside a savepoint rolled back after it.

    sql_fuzz.py TARGET SECONDS CORPUS_DIR CRASH_DIR

TARGET is rule_conditions, options or mappings. One input in ten runs under a
small privrisk.memory_limit (set before the role switch: only the administrator
may set it). create_profile, which only privileged roles may call, runs as the
connecting role. Inputs are made by mutating
seeds (CORPUS_DIR: one input per file, taken from the regression suites) and by
generating from each target's grammar. An input passes when the call returns
or raises a clean ERROR; it fails (and is written to CRASH_DIR, and the run
stops) when the server answers with an internal error (SQLSTATE XX...), or the
connection breaks (a backend crashed; the targets share a server, so a crash
breaks the others' connections too: the sanitizer's report names the input's
frames). A statement_timeout (57014) counts as a clean error. Prints the executions and the outcome
counts by SQLSTATE; exit 1 on a failure."""
import collections
import ctypes
import ctypes.util
import json
import os
import random
import sys
import time

libpq = ctypes.CDLL(ctypes.util.find_library("pq") or "libpq.so.5")
libpq.PQconnectdb.restype = ctypes.c_void_p
libpq.PQconnectdb.argtypes = [ctypes.c_char_p]
libpq.PQstatus.argtypes = [ctypes.c_void_p]
libpq.PQexec.restype = ctypes.c_void_p
libpq.PQexec.argtypes = [ctypes.c_void_p, ctypes.c_char_p]
libpq.PQresultStatus.argtypes = [ctypes.c_void_p]
libpq.PQresultErrorField.restype = ctypes.c_char_p
libpq.PQresultErrorField.argtypes = [ctypes.c_void_p, ctypes.c_int]
libpq.PQclear.argtypes = [ctypes.c_void_p]
libpq.PQerrorMessage.restype = ctypes.c_char_p
libpq.PQerrorMessage.argtypes = [ctypes.c_void_p]
libpq.PQfinish.argtypes = [ctypes.c_void_p]
PGRES_FATAL_ERROR, CONNECTION_OK, PG_DIAG_SQLSTATE, PG_DIAG_MESSAGE = 7, 0, ord("C"), ord("M")


class Server:
    def __init__(self):
        self.conn = libpq.PQconnectdb(b"")
        if libpq.PQstatus(self.conn) != CONNECTION_OK:
            sys.exit("sql_fuzz: cannot connect: " + libpq.PQerrorMessage(self.conn).decode())

    def run(self, sql):
        """(sqlstate or None, message); sqlstate 'CRASH' when the connection broke."""
        res = libpq.PQexec(self.conn, sql.encode("utf-8", "surrogateescape"))
        if libpq.PQstatus(self.conn) != CONNECTION_OK:
            return "CRASH", libpq.PQerrorMessage(self.conn).decode(errors="replace")
        state, message = None, ""
        if res and libpq.PQresultStatus(res) == PGRES_FATAL_ERROR:
            state = (libpq.PQresultErrorField(res, PG_DIAG_SQLSTATE) or b"?").decode()
            message = (libpq.PQresultErrorField(res, PG_DIAG_MESSAGE) or b"").decode(errors="replace")
        libpq.PQclear(res)
        return state, message

    def must(self, sql):
        state, message = self.run(sql)
        if state:
            sys.exit(f"sql_fuzz: setup failed ({state}): {message}\n{sql}")


def literal(s):
    return "'" + s.replace("'", "''") + "'"


# The tables every target reads, owned by a role with no other right.
SETUP = """
SET client_min_messages = warning;
DROP ROLE IF EXISTS fz_owner;
CREATE ROLE fz_owner;
GRANT USAGE, CREATE ON SCHEMA public TO fz_owner;
SET ROLE fz_owner;
CREATE TABLE fz_people (id int, age int, zip text, sex text, diagnosis text, salary numeric, born date);
INSERT INTO fz_people SELECT i, 17 + i % 70, (14850 + i % 7)::text, CASE WHEN i % 3 = 0 THEN 'F' ELSE 'M' END,
    (ARRAY['Flu', 'Mumps', 'Cancer', 'Asthma'])[1 + i % 4], 1000 * (i % 13), date '1950-01-01' + i * 37
FROM generate_series(1, 400) AS i;
CREATE TABLE fz_dictionary (zip text, age text, sex text);
INSERT INTO fz_dictionary SELECT zip, age::text, sex FROM fz_people WHERE id % 3 = 0;
RESET ROLE;
SELECT privrisk.interval_hierarchy('fz_age', 0, 160, ARRAY[5, 10, 20, 40]);
SELECT privrisk.load_hierarchy('fz_zip', string_agg(z || ';' || left(z, 4) || '*;*', E'\\n'))
FROM (SELECT DISTINCT zip AS z FROM fz_people) AS d;
SELECT privrisk.load_hierarchy('fz_sex', E'M;*\\nF;*');
SET ROLE fz_owner;
SELECT privrisk.create_policy('fz_policy', 'fz_people');
RESET ROLE;
SET statement_timeout = '3s';
"""
TEARDOWN = """
RESET ROLE;
RESET statement_timeout;
SELECT privrisk.drop_policy('fz_policy');
DROP TABLE fz_people, fz_dictionary;
SELECT privrisk.drop_hierarchy(h) FROM unnest(ARRAY['fz_age', 'fz_zip', 'fz_sex']) AS h;
REVOKE ALL ON SCHEMA public FROM fz_owner;
DROP ROLE fz_owner;
"""

COLUMNS = ["id", "age", "zip", "sex", "diagnosis", "salary", "born"]
NUMBERS = [0, 1, -1, 2, 3, 0.5, 1e-320, 1e308, -1e308, 2 ** 31, 2 ** 53 + 1, 2 ** 63, -(2 ** 63), 10 ** 30, 1.0000000001]
WORDS = ["", "k", "l", "t", "*", "⊥", "é", "\u2028", "x" * 300, "a\\b", "'", '"', "null", "NaN", "Infinity", "-Infinity",
         "fz_age", "fz_zip", "fz_sex", "fz_dictionary", "fz_people", "age", "zip", "sex", "diagnosis", "pg_class",
         "public.fz_dictionary", "pg_catalog.pg_authid", "1e400", "0x10", " 5", "5 "]


class Target:
    keys = []

    def __init__(self, rng, seeds):
        self.rng, self.seeds = rng, seeds

    def word(self):
        r = self.rng
        if r.random() < 0.3:
            return "".join(chr(r.choice([r.randrange(1, 128), r.randrange(128, 0x3000)])) for _ in range(r.randrange(0, 12)))
        return r.choice(WORDS + self.keys)

    def json_value(self, depth=0):
        r = self.rng
        kind = r.randrange(9 if depth < 3 else 5)
        if kind == 0:
            return None
        if kind == 1:
            return r.choice([True, False])
        if kind == 2:
            return r.choice(NUMBERS) * r.choice([1, 1, -1])
        if kind == 3:
            return r.randrange(-5, 30)
        if kind == 4:
            return self.word()
        if kind in (5, 6):
            return {self.key(): self.json_value(depth + 1) for _ in range(r.randrange(0, 5))}
        return [self.json_value(depth + 1) for _ in range(r.randrange(0, 6))]

    def key(self):
        return self.rng.choice(self.keys) if self.keys and self.rng.random() < 0.8 else self.word()

    def mutate_json(self, value, depth=0):
        r = self.rng
        if isinstance(value, dict) and value and r.random() < 0.7:
            value = dict(value)
            k = r.choice(list(value))
            op = r.randrange(4)
            if op == 0:
                del value[k]
            elif op == 1:
                value[k] = self.mutate_json(value[k], depth + 1)
            elif op == 2:
                value[self.key()] = self.json_value(depth + 1)
            else:
                value[k] = self.json_value(depth + 1)
            return value
        if isinstance(value, list) and value and r.random() < 0.7:
            value = list(value)
            i = r.randrange(len(value))
            if r.random() < 0.5:
                value[i] = self.mutate_json(value[i], depth + 1)
            else:
                value.insert(i, self.json_value(depth + 1))
            return value
        return self.json_value(depth)

    def json_input(self):
        if self.seeds and self.rng.random() < 0.7:
            try:
                value = json.loads(self.rng.choice(self.seeds))
            except ValueError:
                value = {}
            for _ in range(self.rng.randrange(1, 4)):
                value = self.mutate_json(value)
            return json.dumps(value, ensure_ascii=False)
        return json.dumps(self.fresh(), ensure_ascii=False)

    def fresh(self):
        """A new input from the grammar: mostly an object of the target's keys."""
        if self.rng.random() < 0.8:
            return {self.key(): self.json_value(1) for _ in range(self.rng.randrange(1, 6))}
        return self.json_value()


class Options(Target):
    """audit options, search/lattice constraints, profile thresholds, search results to apply."""
    keys = ["k", "l", "l_kind", "l_c", "t", "t_kind", "t_hierarchy", "delta", "c", "ck_k", "max_risk", "average_risk",
            "max_suppression", "kmax", "dictionary", "mapping", "leaf_weights", "sensitivity_family", "classifier",
            "target", "risk_threshold", "dt_risk", "sensitive_hierarchy", "epsilon", "records_at_risk", "result", "node",
            "levels", "found", "quasi_identifiers", "hierarchies", "source", "rows", "utility_metric", "released",
            "hierarchy", "measures", "suppressed", "distinct", "entropy", "recursive", "equal", "ordered", "hierarchical"]

    def calls(self):
        j = literal(self.json_input())
        qi = "ARRAY['age', 'zip', 'sex']"
        hs = "ARRAY['fz_age', 'fz_zip', 'fz_sex']"
        kind = self.rng.randrange(5)
        if kind == 0:
            return [f"SELECT privrisk.audit('fz_people', {qi}, 'diagnosis', {hs}, ARRAY[1, 1, 0], {j}::jsonb)"]
        if kind == 1:
            return [f"SELECT privrisk.search('fz_people', {qi}, {hs}, 'diagnosis', {j}::jsonb, "
                    f"{literal(self.rng.choice(['loss', 'height', 'discernibility', 'entropy', 'levels_kept', self.word()]))})"]
        if kind == 2:
            return [f"SELECT count(*) FROM privrisk.lattice('fz_people', ARRAY['age', 'sex'], ARRAY['fz_age', 'fz_sex'], "
                    f"'diagnosis', {j}::jsonb)"]
        if kind == 3:
            return ["RESET ROLE", f"SELECT privrisk.create_profile('fz_profile', {j}::jsonb)",
                    "SELECT privrisk.audit('fz_people', ARRAY['age', 'sex'], 'diagnosis', ARRAY['fz_age', 'fz_sex'], "
                    "ARRAY[1, 0], profile => 'fz_profile')"]
        return [f"SELECT privrisk.apply_generalization('fz_applied', {j}::jsonb)",
                "SELECT count(*), max(age), max(zip) FROM privrisk.release('fz_applied') "
                "AS r(id int, age text, zip text, sex text, diagnosis text, salary text, born text)"]


class Mappings(Target):
    """identification's mappings, with their weights and levels."""
    keys = ["released", "dictionary", "hierarchy"]

    def fresh(self):
        r = self.rng
        if r.random() < 0.2:
            return self.json_value()
        mapping = []
        for _ in range(r.randrange(1, 5)):
            a = {"released": r.choice(["zip", "age", "sex", "zip", "id", self.word()])}
            if r.random() < 0.3:
                a["dictionary"] = r.choice(["zip", "age", "sex", self.word()])
            if r.random() < 0.5:
                a["hierarchy"] = r.choice(["fz_zip", "fz_age", "fz_sex", self.word(), None])
            if r.random() < 0.1:
                a[self.word()] = self.json_value(2)
            mapping.append(a)
        return mapping

    def calls(self):
        r = self.rng
        text = self.json_input()
        j = literal(text)
        try:  # mostly as many weights, levels and values as the mapping has attributes
            n = len(json.loads(text)) if r.random() < 0.8 else r.randrange(0, 5)
        except (ValueError, TypeError):
            n = r.randrange(0, 5)
        weights = "ARRAY[" + ", ".join(str(r.choice([0.2, 0.5, 1, 0.9, 0, -1, 1e308])) for _ in range(n)) + "]::float8[]"
        levels = r.choice(["NULL", "ARRAY[" + ", ".join(str(r.choice([0, 0, 1, 2, -1, 99])) for _ in range(n)) + "]::int[]"])
        values = "ARRAY[" + ", ".join(r.choice(["'14850'", "'30'", "'M'", "NULL", "'1485*'", "'*'", literal(self.word())])
                                      for _ in range(n)) + "]::text[]"
        kind = r.randrange(4)
        if kind == 0:
            mode = r.choice(["'exact'", "'jaro'", literal(self.word())])
            return [f"SELECT count(*), sum(matches) FROM privrisk.match_counts('fz_people', 'fz_dictionary', {j}::jsonb, "
                    f"{mode}, {r.choice([0.8, 0, 1, -1, 2])}, {levels})"]
        if kind == 1:
            return [f"SELECT privrisk.dictionary_risk('fz_people', 'fz_dictionary', {j}::jsonb, {weights}, {levels})"]
        if kind == 2:
            return [f"SELECT privrisk.match_count({values}, 'fz_dictionary', {j}::jsonb)"]
        return [f"SELECT count(*) FROM privrisk.optimal_disclosures('fz_people', 'fz_dictionary', {j}::jsonb, {weights}, "
                f"{r.choice(['NULL', '0.5', '0', '-1', '1e308'])})"]


class RuleConditions(Target):
    """add_rule's condition text (and its column, operator, hierarchy and level), then a release read."""
    FUNCS = ["length", "lower", "upper", "abs", "coalesce", "nullif", "greatest", "least", "now", "random", "pg_sleep",
             "current_user", "session_user", "pg_read_file", "txid_current", "setseed", "nextval", "row_number",
             "count", "sum", "substr", "md5", "to_char", "date_part", "privrisk.gen", "privrisk.hide", "format"]
    OPS = ["=", "<>", "<", ">", "<=", ">=", "+", "-", "*", "/", "%", "||", "AND", "OR", "LIKE", "~", "IS DISTINCT FROM",
           "@>", "->", "::text =", "IN"]

    def expr(self, depth=0):
        r = self.rng
        kind = r.randrange(12 if depth < 4 else 4)
        if kind == 0:
            return r.choice(COLUMNS)
        if kind == 1:
            return str(r.choice(NUMBERS))
        if kind == 2:
            return literal(self.word())
        if kind == 3:
            return r.choice(["true", "false", "NULL", "CURRENT_DATE", "'14850'", "'F'"])
        if kind in (4, 5, 6):
            return f"({self.expr(depth + 1)} {r.choice(self.OPS)} {self.expr(depth + 1)})"
        if kind == 7:
            return f"{r.choice(['NOT', '-', ''])} {self.expr(depth + 1)}"
        if kind == 8:
            args = ", ".join(self.expr(depth + 1) for _ in range(r.randrange(0, 3)))
            return f"{r.choice(self.FUNCS)}({args})"
        if kind == 9:
            return f"CASE WHEN {self.expr(depth + 1)} THEN {self.expr(depth + 1)} ELSE {self.expr(depth + 1)} END"
        if kind == 10:
            return f"({self.expr(depth + 1)})::{r.choice(['int', 'text', 'numeric', 'date', 'bool', 'privrisk.hist', 'regclass'])}"
        return r.choice([f"EXISTS (SELECT 1 FROM fz_people p WHERE p.id = {self.expr(depth + 1)})",
                         f"{self.expr(depth + 1)} IN (SELECT age FROM fz_people)",
                         f"(SELECT max(zip) FROM fz_dictionary) = {self.expr(depth + 1)}",
                         f"{self.expr(depth + 1)} BETWEEN {self.expr(depth + 1)} AND {self.expr(depth + 1)}"])

    def mutate_text(self, text):
        r = self.rng
        chars = list(text)
        for _ in range(r.randrange(1, 4)):
            op = r.randrange(4)
            i = r.randrange(len(chars) + 1)
            if op == 0 and chars:
                del chars[min(i, len(chars) - 1)]
            elif op == 1:
                chars.insert(i, r.choice("()'\";,-/*$\\0 \n\tx" + "".join(r.choice(COLUMNS))))
            elif op == 2 and self.seeds:
                other = r.choice(self.seeds)
                j = r.randrange(len(other) + 1)
                chars[i:i] = list(other[j:j + r.randrange(1, 20)])
            else:
                chars[i:i] = list(" " + r.choice(self.OPS) + " " + self.expr(2) + " ")
        return "".join(chars)

    def calls(self):
        r = self.rng
        if self.seeds and r.random() < 0.5:
            condition = self.mutate_text(r.choice(self.seeds))
        else:
            condition = self.expr()
        column = r.choice(COLUMNS + [self.word()])
        op = r.choice(["hide", "hide", "gen", self.word()])
        hierarchy, level = "NULL", "NULL"
        if op == "gen" or r.random() < 0.02:
            hierarchy = literal(r.choice(["fz_age", "fz_zip", "fz_sex", self.word()]))
            level = str(r.choice([0, 1, 2, 3, 4, 5, -1, 2 ** 31 - 1]))
        return [f"SELECT privrisk.add_rule('fz_policy', {literal(column)}, {literal(op)}, {literal(condition)}, {hierarchy}, {level})",
                "SELECT privrisk.create_release_view('fz_policy', 'fz_view')",
                "SELECT count(*), md5(string_agg(v::text, ',')) FROM fz_view AS v",
                f"SELECT count(*) FROM fz_view WHERE {r.choice(COLUMNS)}::text = {literal(self.word())}"]


TARGETS = {"rule_conditions": RuleConditions, "options": Options, "mappings": Mappings}


def main():
    if len(sys.argv) != 5 or sys.argv[1] not in TARGETS:
        sys.exit(__doc__)
    target_name, seconds, corpus, crashes = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
    seeds = []
    if os.path.isdir(corpus):
        for name in sorted(os.listdir(corpus)):
            with open(os.path.join(corpus, name), encoding="utf-8", errors="surrogateescape") as f:
                seeds.append(f.read())
    rng = random.Random(int(os.environ.get("PRIVRISK_FUZZ_SEED", time.time_ns())))
    server = Server()
    # Roles are the cluster's: each target has its own, so that targets can run side by side.
    role = "fz_owner_" + target_name
    setup, teardown = SETUP.replace("fz_owner", role), TEARDOWN.replace("fz_owner", role)
    for sql in teardown.strip().split(";\n"):  # what an interrupted run left
        server.run(sql)
    server.must(setup)
    if target_name == "options":  # a search result that found a node, for apply_generalization to take apart
        res = libpq.PQexec(server.conn, b"SELECT privrisk.search('fz_people', ARRAY['age', 'zip', 'sex'], "
                           b"ARRAY['fz_age', 'fz_zip', 'fz_sex'], 'diagnosis', '{\"k\": 3}')::text")
        libpq.PQgetvalue.restype = ctypes.c_char_p
        libpq.PQgetvalue.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_int]
        seeds += [libpq.PQgetvalue(res, 0, 0).decode()] * max(1, len(seeds) // 4)
        libpq.PQclear(res)
    target = TARGETS[target_name](rng, seeds)
    outcomes = collections.Counter()
    messages = collections.Counter()
    runs = 0
    deadline = time.monotonic() + seconds
    failure = None
    while time.monotonic() < deadline and not failure:
        calls = target.calls()
        limit = rng.choice(["1MB", "2MB", "16MB"]) if rng.random() < 0.1 else "1GB"
        server.must(f"BEGIN; SET LOCAL privrisk.memory_limit = '{limit}'; SET LOCAL ROLE {role}")
        for sql in calls:
            state, message = server.run(sql)
            runs += 1
            outcomes[state or "ok"] += 1
            if state:
                messages[message[:70]] += 1
            if state == "CRASH" or (state and state.startswith("XX")):
                failure = (sql, state, message)
                break
            if state:
                break  # the transaction is aborted: the rest of this input would only repeat the error
        if not failure:
            server.must("ROLLBACK")
    if failure:
        os.makedirs(crashes, exist_ok=True)
        path = os.path.join(crashes, f"{target_name}-{int(time.time())}.sql")
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(f"-- {failure[1]}: {failure[2]}\n{failure[0]};\n")
        print(f"{target_name}: FAILED after {runs} runs ({failure[1]}: {failure[2].strip()}); input in {path}")
        return 1
    server.must(teardown)
    summary = ", ".join(f"{k} {v}" for k, v in outcomes.most_common())
    print(f"{target_name}: {runs} runs in {seconds:.0f} s, no internal error, no crash ({summary})")
    if os.environ.get("PRIVRISK_FUZZ_VERBOSE"):
        for m, n in messages.most_common(15):
            print(f"  {n:7d}  {m}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
