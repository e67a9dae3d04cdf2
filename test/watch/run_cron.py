#!/usr/bin/env python3
"""Watched release views rechecked by pg_cron (docs/watch.md), in a cluster of its own with
shared_preload_libraries = 'pg_cron':

- the steward watches a release view with fail_closed and schedules
  CALL privrisk.recheck_watched() every minute (pg_cron 1.4: one-minute granularity);
- the table drifts (a row in a class of its own breaks the profile's k): a failing verdict is recorded,
  by the steward's job, in the watch catalog and the audit log within one schedule (≤ 80 s);
- the analyst's read of the view is refused with the reason; the steward still reads it;
- a LISTEN on privrisk_watch (by the analyst: the payload names no value) receives the change;
- the steward fixes the data and rechecks: the view opens, and a second notification says so.

    test/watch/run_cron.py [DIR]   (default /tmp/privrisk-cron-test; PRIVRISK_CRON_PORT, default 5653)

Needs the extension and pg_cron installed (PRIVRISK_PG_ROOT: the server tree scripts/test uses).
Exit 1 on a failure."""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
from harness import ROOT, check, cluster, failures  # noqa: E402
DIR = sys.argv[1] if len(sys.argv) > 1 else "/tmp/privrisk-cron-test"
PORT = os.environ.get("PRIVRISK_CRON_PORT", "5653")
ENV = dict(os.environ, PGHOST=DIR, PGPORT=PORT, PGDATABASE="postgres")
TICK_LIMIT = 80  # seconds: one schedule of a minute, the job's start and its run


def psql(sql, user="postgres", check_errors=True):
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-U", user], input=sql,
                       capture_output=True, text=True, env=ENV, cwd=ROOT)
    if check_errors and r.returncode != 0:
        sys.exit(f"psql as {user} failed:\n{sql}\n{r.stderr}")
    return r


SETUP = r"""
CREATE EXTENSION privrisk;
CREATE EXTENSION pg_cron;
ALTER DATABASE postgres SET session_preload_libraries = 'privrisk';
CREATE ROLE steward LOGIN;
CREATE ROLE analyst LOGIN;
GRANT USAGE ON SCHEMA cron TO steward;
CREATE SCHEMA clinic AUTHORIZATION steward;
GRANT USAGE ON SCHEMA clinic TO analyst;
SELECT privrisk.create_profile('cron_k3', '{"k": 3}', 'three rows per class');
"""

STEWARD_SETUP = r"""
CREATE TABLE clinic.visits (zip text);
INSERT INTO clinic.visits SELECT (47001 + i % 3)::text FROM generate_series(1, 30) AS i;
SECURITY LABEL FOR privrisk ON COLUMN clinic.visits.zip IS 'quasi_identifier';
SELECT privrisk.create_policy('visits', 'clinic.visits');
SELECT privrisk.add_rule('visits', 'zip', 'hide', 'true');
SELECT privrisk.create_release_view('visits', 'clinic.visits_release');
GRANT SELECT ON clinic.visits_release TO analyst;
SELECT privrisk.watch('clinic.visits_release', 'cron_k3', fail_closed => true) ->> 'passed';
SELECT cron.schedule('privrisk-watch', '* * * * *', 'CALL privrisk.recheck_watched()') > 0;
"""


def notifications(listener):
    """What the listening psql printed: it prints the notifications it received after each command."""
    out, _ = listener.communicate("SELECT 'polled';\n\\q\n", timeout=30)
    payloads = []
    for line in out.splitlines():
        if line.startswith('Asynchronous notification "privrisk_watch" with payload "'):
            payloads.append(json.loads(line.split(' with payload "', 1)[1].rsplit('" received from', 1)[0]))
    return payloads


def start_listener():
    listener = subprocess.Popen(["psql", "-X", "-q", "-A", "-t", "-U", "analyst"], stdin=subprocess.PIPE,
                                stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, env=ENV)
    listener.stdin.write("LISTEN privrisk_watch;\nSELECT 'listening';\n")
    listener.stdin.flush()
    check(listener.stdout.readline().strip() == "listening", "the analyst listens on privrisk_watch")
    return listener


def main():
    cluster(f'start_cluster "{DIR}" "port = {PORT}" "shared_preload_libraries = \'pg_cron\'" '
            f'"cron.database_name = \'postgres\'" "cron.use_background_workers = on" "max_worker_processes = 16"')
    try:
        psql(SETUP)
        out = psql(STEWARD_SETUP, user="steward").stdout.split()
        check(out[-2:] == ["true", "t"], f"the view is watched, passes, and the recheck is scheduled ({out[-2:]})")
        listener = start_listener()

        drift = psql("INSERT INTO clinic.visits VALUES ('99999'); SELECT now();", user="steward").stdout.strip()
        started, verdict = time.time(), None
        while time.time() - started < TICK_LIMIT:
            row = psql(f"SELECT passed, checked_by, audit_id FROM privrisk.watched_view WHERE checked_at > '{drift}'",
                       user="steward").stdout.strip()
            if row:
                verdict = row.split("|")
                break
            time.sleep(2)
        elapsed = time.time() - started
        check(verdict is not None and verdict[0] == "f" and verdict[1] == "steward",
              f"the steward's pg_cron job records a failing verdict {elapsed:.0f} s after the drift ({verdict})")
        if verdict is None:
            return
        logged = psql(f"SELECT audited_by, settings->>'profile', result->'verdict'->>'summary' FROM privrisk.audit_log "
                      f"WHERE id = {verdict[2]}", user="steward").stdout.strip()
        check(logged == "steward|cron_k3|not publishable: k_anonymity = 1 < 3",
              f"the verdict is in the audit log ({logged})")
        runs = psql("SELECT status, command FROM cron.job_run_details ORDER BY runid DESC LIMIT 1",
                    user="steward").stdout.strip()
        check(runs == "succeeded|CALL privrisk.recheck_watched()", f"pg_cron's run succeeded ({runs})")

        refused = psql("SELECT count(*) FROM clinic.visits_release", user="analyst", check_errors=False)
        check(refused.returncode != 0 and 'release view "clinic.visits_release" is closed' in refused.stderr
              and 'risk profile "cron_k3"' in refused.stderr and "k_anonymity = 1 < 3" in refused.stderr,
              f"the analyst's read is refused with the reason ({refused.stderr.strip()[:160]}…)")
        steward_reads = psql("SELECT count(*) FROM clinic.visits_release", user="steward").stdout.strip()
        check(steward_reads == "31", f"the steward still reads the view ({steward_reads} rows)")
        got = notifications(listener)
        check(got == [{"view": "clinic.visits_release", "profile": "cron_k3", "passed": False, "previous": True}],
              f"the listener received one notification of the change ({got})")

        listener = start_listener()
        fixed = psql("DELETE FROM clinic.visits WHERE zip = '99999'; CALL privrisk.recheck_watched();",
                     user="steward").stdout.strip()
        check(fixed == "1|0", f"the steward fixes the data and rechecks: 1 rechecked, 0 failing ({fixed})")
        reads = psql("SELECT count(*) FROM clinic.visits_release", user="analyst", check_errors=False)
        check(reads.returncode == 0 and reads.stdout.strip() == "30", f"the analyst reads again ({reads.stdout.strip()})")
        got = notifications(listener)
        check(got == [{"view": "clinic.visits_release", "profile": "cron_k3", "passed": True, "previous": False}],
              f"the listener received the view's reopening ({got})")
        psql("SELECT cron.unschedule('privrisk-watch');", user="steward")
    finally:
        cluster(f'CLUSTER_DIR="{DIR}"; stop_cluster')
    print(f"cron: {len(failures)} failed")


if __name__ == "__main__":
    main()
    sys.exit(1 if failures else 0)
