#!/usr/bin/env python3
"""Crash and restart (the hardening issue): a cluster of its own, where backends are killed in the
middle of a release, an audit, a search, a DP release and a hierarchy load — by pg_terminate_backend
and by kill -9 (after which the postmaster restarts every backend and replays the WAL). After each:

- the cluster answers again;
- privrisk.check_catalog() reports no violation (budgets equal their ledgers among them);
- no DP release returned rows without a committed spend in the ledger (its seed is there).

    test/crash/run_crash.py [DIR]   (default /tmp/privrisk-crash-test; PRIVRISK_CRASH_PORT, default 5651)

Needs the extension installed (PRIVRISK_PG_ROOT: the server tree scripts/test uses). Exit 1 on a failure."""
import os
import signal
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
from harness import ROOT, check, cluster, failures  # noqa: E402
DIR = sys.argv[1] if len(sys.argv) > 1 else "/tmp/privrisk-crash-test"
PORT = os.environ.get("PRIVRISK_CRASH_PORT", "5651")
ENV = dict(os.environ, PGHOST=DIR, PGPORT=PORT, PGUSER="postgres", PGDATABASE="crash")


def psql(sql, database="crash", check_errors=True):
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", database], input=sql,
                       capture_output=True, text=True, env=ENV, cwd=ROOT)
    if check_errors and r.returncode != 0:
        sys.exit(f"psql failed:\n{sql}\n{r.stderr}")
    return r.stdout.strip()


def wait_ready(seconds=60):
    deadline = time.time() + seconds
    while time.time() < deadline:
        r = subprocess.run(["psql", "-X", "-A", "-t", "-d", "crash", "-c", "SELECT 1"], capture_output=True,
                           text=True, env=ENV)
        if r.returncode == 0 and r.stdout.strip() == "1":
            return True
        time.sleep(0.2)
    return False


SETUP = r"""
CREATE EXTENSION privrisk;
CREATE TABLE big AS
SELECT i::int AS id, (17 + (i * 7919) % 73)::int AS age, (ARRAY['F', 'M'])[1 + i % 2] AS sex,
       lpad(((i * 104729) % 90000 + 10000)::text, 5, '0') AS zip,
       (ARRAY['flu', 'cold', 'asthma', 'diabetes', 'cancer', 'none'])[1 + (i * 31) % 6] AS diagnosis
FROM generate_series(1::bigint, 1500000) AS i;
ANALYZE big;
SELECT privrisk.interval_hierarchy('age', 0, 160, ARRAY[5, 10, 20, 40]), privrisk.prefix_hierarchy('zip', 5),
       privrisk.load_hierarchy('sex', E'F;*\nM;*');
SELECT privrisk.create_policy('big_release', 'big');
SELECT privrisk.add_rule('big_release', 'age', 'gen', 'id % 3 = 0', 'age', 2);
SELECT privrisk.add_rule('big_release', 'zip', 'gen', 'false', 'zip', 2);
SELECT privrisk.create_release_view('big_release', 'big_public');
SELECT privrisk.set_budget('big', 50, 1e-2);
CREATE TABLE csv AS SELECT string_agg(format('v%s;g%s;h%s;*', i, i / 10, i / 1000), E'\n') AS text
FROM generate_series(1, 300000) AS i;
"""

OPERATIONS = {
    "release": "SELECT count(*), count(DISTINCT age) FROM big_public",
    "audit": "SELECT privrisk.audit('big', ARRAY['age', 'sex', 'zip'], 'diagnosis', ARRAY['age', 'sex', 'zip'], ARRAY[1, 0, 2])",
    "search": "SELECT privrisk.lattice('big', ARRAY['age', 'sex', 'zip'], ARRAY['age', 'sex', 'zip'], 'diagnosis', "
              "'{\"k\": 5, \"l\": 2}')",
    "dp_release": "SELECT count(*) FROM privrisk.dp_release('big', ARRAY['age', 'sex', 'zip'], ARRAY['age', 'sex', 'zip'], "
                  "0.5, 1e-6, levels => ARRAY[2, 0, 3], seed => {seed}) AS r(age text, sex text, zip text)",
    "hierarchy load": "SELECT privrisk.load_hierarchy('loaded_{seed}', (SELECT text FROM csv))",
}


def kill_during(name, sql, how, delay):
    """Runs sql in a psql of its own and kills its backend `delay` s after it started. Returns
    (killed, output of the client)."""
    victim = subprocess.Popen(["psql", "-X", "-A", "-t", "-d", "crash", "-c", sql], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, env=dict(ENV, PGAPPNAME="crash_victim"))
    pid = None
    deadline = time.time() + 30
    while pid is None and time.time() < deadline and victim.poll() is None:
        out = psql("SELECT pid FROM pg_stat_activity WHERE application_name = 'crash_victim' AND state = 'active'",
                   "postgres", check_errors=False)
        pid = int(out) if out.isdigit() else None
        if pid is None:
            time.sleep(0.02)
    killed = False
    if pid is not None:
        time.sleep(delay)
        if victim.poll() is None:
            if how == "kill -9":
                os.kill(pid, signal.SIGKILL)
            else:
                psql(f"SELECT pg_terminate_backend({pid})", "postgres", check_errors=False)
            killed = True
    out, err = victim.communicate(timeout=120)
    return killed, out.strip(), err.strip()


def main():
    cluster(f'start_cluster "{DIR}" "port = {PORT}" "synchronous_commit = on" "restart_after_crash = on"')
    try:
        psql("CREATE DATABASE crash", "postgres")
        psql(SETUP)
        seed = 100
        returned_rows = []  # seeds of DP releases whose client got rows
        for name in OPERATIONS:
            for how in ("pg_terminate_backend", "kill -9"):
                for delay in (0.05, 0.3):
                    seed += 1
                    sql = OPERATIONS[name].replace("{seed}", str(seed))
                    killed, out, err = kill_during(name, sql, how, delay)
                    ready = wait_ready()
                    check(ready, f"{name}, {how} after {delay} s: the cluster answers again"
                                 f" ({'killed' if killed else 'finished first'})")
                    if not ready:
                        return 1
                    if name == "dp_release" and out.isdigit():
                        returned_rows.append(seed)
                    violations = psql("SELECT coalesce(string_agg(invariant || ': ' || object || ': ' || problem, '; '), '') "
                                      "FROM privrisk.check_catalog()")
                    check(violations == "", f"{name}, {how} after {delay} s: check_catalog() finds no violation"
                                            + (f" ({violations})" if violations else ""))
        # Releases that finished (their clients got rows) each have their spend in the ledger.
        for s in (seed + 1, seed + 2):
            out = psql(OPERATIONS["dp_release"].replace("{seed}", str(s)))
            if out.isdigit():
                returned_rows.append(s)
        spent = set(psql("SELECT string_agg(parameters->>'seed', ',') FROM privrisk.budget_ledger").split(","))
        unpaid = [s for s in returned_rows if str(s) not in spent]
        check(returned_rows and not unpaid,
              f"every DP release that returned rows ({len(returned_rows)}) has its spend committed"
              + (f"; unpaid seeds {unpaid}" if unpaid else ""))
        ledger = psql("SELECT count(*) FROM privrisk.budget_ledger")
        print(f"     ledger: {ledger} spends for {len(returned_rows)} releases that returned rows "
              "(a killed release may have spent without returning: the safe direction)")
    finally:
        cluster(f'CLUSTER_DIR="{DIR}"; stop_cluster')
    print(f"crash: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
