#!/usr/bin/env python3
"""Resource bounds that hold (issue #33, docs/memory.md): the administrator's privrisk.memory_limit
stays in force for a role with default rights, whatever it tries and whatever the preload mode, and it
bounds that role's backend under audit(), hist() and the entropy aggregates.

One cluster of its own, run three times: without preloading (the module loads on first use),
with session_preload_libraries, and with shared_preload_libraries (a restart). The administrator
sets privrisk.memory_limit = 64MB with ALTER SYSTEM (postgresql.auto.conf), privrisk.audit_memory_limit =
256MB in postgresql.conf, and privrisk.memory_limit = 32MB for one role with ALTER ROLE ... SET.
In each mode, a role with default rights (the stranger):

- connects with PGOPTIONS raising privrisk.memory_limit and privrisk.audit_memory_limit: refused at
  connection (shared_preload_libraries), or the administrator's values are in force once the module is
  loaded, with a WARNING that names the setting;
- tries SET (before and after the module loads), SET LOCAL, set_config(), a function's SET clause,
  ALTER ROLE itself SET and ALTER DATABASE (its own database) SET: each refused, the values unchanged;
- runs entropy(), hist() and audit() over data that needs far more than 64MB: the peak private
  memory of its backend grows by at most 1.5 x 64MB, and the calls stop with the error that names the
  limit (audit() falls back to its spilling GROUP BY first).

A role granted SET on the parameter, and a superuser, keep their rights in every mode; once, a
superuser raises the limit and the same calls use far more than the bound (so the bound is what held
them). Peak private memory: the growth of the backend's VmHWM (reset through clear_refs) less the
growth of its shared and file-backed pages, as in test/regress/sql/memory_limits.sql.

    test/bounds/run_bounds.py [DIR]   (default /tmp/privrisk-bounds-test; PRIVRISK_BOUNDS_PORT, default 5652)

Needs the extension installed (PRIVRISK_PG_ROOT: the server tree scripts/test uses). Exit 1 on a failure."""
import os
import re
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
from harness import ROOT, check, cluster, failures  # noqa: E402
DIR = sys.argv[1] if len(sys.argv) > 1 else "/tmp/privrisk-bounds-test"
PORT = os.environ.get("PRIVRISK_BOUNDS_PORT", "5652")
ENV = {k: v for k, v in os.environ.items() if not k.startswith("PG")}
ENV.update(PGHOST=DIR, PGPORT=PORT, PGDATABASE="bounds")
BOUND_KB = 64 * 1024


def session(sql, user="postgres", database="bounds", options=None):
    """One session of psql running `sql` (errors do not stop it). Returns (stdout, stderr, exit code)."""
    env = dict(ENV, PGUSER=user, PGDATABASE=database)
    if options:
        env["PGOPTIONS"] = options
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-F", "|"], input=sql, capture_output=True, text=True,
                       env=env, cwd=ROOT)
    return r.stdout.strip(), r.stderr.strip(), r.returncode


def admin(sql, database="bounds"):
    out, err, code = session("\\set ON_ERROR_STOP 1\n" + sql, database=database)
    if code != 0:
        sys.exit(f"psql failed:\n{sql}\n{err}")
    return out


SETUP = r"""
CREATE ROLE stranger LOGIN;
CREATE ROLE stranger_two LOGIN;
CREATE ROLE tuner LOGIN;
GRANT SET ON PARAMETER privrisk.memory_limit TO tuner;
ALTER ROLE stranger_two SET privrisk.memory_limit = '32MB';
CREATE DATABASE strangers OWNER stranger;
ALTER SYSTEM SET privrisk.memory_limit = '64MB';
SELECT pg_reload_conf();
"""

DATA = r"""
CREATE EXTENSION privrisk;
-- 3M distinct values: their counts (entropy) or histogram (hist) need far more than 64MB.
CREATE TABLE wide AS SELECT i, 'value ' || i AS v FROM generate_series(1, 3000000) AS i;
-- 2M classes with a sensitive value each: audit()'s classes need more than 64MB.
CREATE TABLE people AS SELECT i AS id, i AS zip, (i * 7) % 1000 AS age, 'd' || (i % 5) AS diagnosis
FROM generate_series(1, 2000000) AS i;
CREATE TABLE tiny AS SELECT i AS zip, i % 3 AS age, 'd' || (i % 2) AS diagnosis FROM generate_series(1, 100) AS i;
VACUUM ANALYZE wide, people, tiny;
GRANT SELECT ON wide, people, tiny TO PUBLIC;

-- The backend's own /proc (superuser only), for any role to measure its own backend.
CREATE SCHEMA probe;
GRANT USAGE ON SCHEMA probe TO PUBLIC;
CREATE FUNCTION probe.status_kb(field text) RETURNS bigint LANGUAGE sql SECURITY DEFINER SET search_path = pg_catalog AS $$
    SELECT (regexp_match(pg_read_file('/proc/' || pg_backend_pid() || '/status'), field || ':\s+(\d+) kB'))[1]::bigint
$$;
CREATE FUNCTION probe.reset_peak() RETURNS void LANGUAGE plpgsql SECURITY DEFINER SET search_path = pg_catalog AS $$
BEGIN
    EXECUTE format('COPY (SELECT 5) TO %L', '/proc/' || pg_backend_pid() || '/clear_refs');
END $$;
-- Runs `query` as the caller; returns the growth of its backend's peak private memory (kB) and how it
-- ended ('ok' or the error message).
CREATE FUNCTION probe.peak(query text, OUT growth_kb bigint, OUT outcome text) LANGUAGE plpgsql
SET search_path = pg_catalog AS $$
DECLARE
    hwm bigint;
    shared bigint;
BEGIN
    PERFORM count(*) FROM (SELECT privrisk.entropy(i), privrisk.hist(i), privrisk.mutual_information(i, i % 2)
                           FROM generate_series(1, 1000) AS i) AS w;
    PERFORM privrisk.audit('public.tiny', ARRAY['zip', 'age'], 'diagnosis');
    PERFORM probe.reset_peak();
    hwm := probe.status_kb('VmHWM');
    shared := probe.status_kb('RssShmem') + probe.status_kb('RssFile');
    outcome := 'ok';
    BEGIN
        EXECUTE query;
    EXCEPTION WHEN program_limit_exceeded THEN
        outcome := SQLERRM;
    END;
    growth_kb := (probe.status_kb('VmHWM') - hwm) - (probe.status_kb('RssShmem') + probe.status_kb('RssFile') - shared);
END $$;
GRANT EXECUTE ON ALL FUNCTIONS IN SCHEMA probe TO PUBLIC;
"""

CALLS = {
    "entropy(i) over 3M distinct values": "SELECT privrisk.entropy(i) FROM public.wide",
    "mutual_information(i, v) over 3M distinct pairs": "SELECT privrisk.mutual_information(i, v) FROM public.wide",
    "hist(v) over 3M distinct values": "SELECT length(privrisk.hist(v)::text) FROM public.wide",
    "audit() of 2M classes": "SELECT privrisk.audit('public.people', ARRAY['zip', 'age'], 'diagnosis')",
}

# One process holds all of a call's state (a parallel plan splits it, each process bounded alone).
SERIAL = "SET max_parallel_workers_per_gather = 0;\n"
RAISE = "-c privrisk.memory_limit=8GB -c privrisk.audit_memory_limit=8GB"
SHOW = "SELECT current_setting('privrisk.memory_limit') || ',' || current_setting('privrisk.audit_memory_limit');\n"
LOAD = "SELECT privrisk.entropy(1) IS NOT NULL AS loaded;\n"  # loads the module when nothing preloaded it


def settings(out):
    """The last line of a session's output that SHOW printed (memory_limit,audit_memory_limit)."""
    lines = [l for l in out.splitlines() if re.fullmatch(r"\d+[kMGT]B,\d+[kMGT]B", l)]
    return lines[-1] if lines else None


def attacks(mode):
    # PGOPTIONS raising both settings.
    out, err, code = session(LOAD + SHOW, "stranger", options=RAISE)
    if mode == "shared_preload_libraries":
        check(code != 0 and 'permission denied to set parameter "privrisk.memory_limit"' in err,
              f"{mode}: a connection whose options raise privrisk.memory_limit is refused ({err.splitlines()[-1:]})")
    else:
        check(settings(out) == "64MB,256MB",
              f"{mode}: PGOPTIONS raising the limits leaves the administrator's (64MB,256MB), got {settings(out)}")
        check('permission denied to set parameter "privrisk.memory_limit"' in err,
              f"{mode}: ... with a WARNING that names the setting ({err.splitlines()[:1]})")
    # The same for audit_memory_limit alone: no longer the caller's to raise.
    out, err, code = session(LOAD + SHOW, "stranger", options="-c privrisk.audit_memory_limit=8GB")
    check(mode == "shared_preload_libraries" and code != 0 or settings(out) == "64MB,256MB",
          f"{mode}: PGOPTIONS raising privrisk.audit_memory_limit alone is refused or discarded, got {settings(out)}")
    # A per-role value the administrator set (ALTER ROLE ... SET) holds against PGOPTIONS too.
    out, err, code = session(LOAD + SHOW, "stranger_two", options=RAISE)
    check(mode == "shared_preload_libraries" and code != 0 or settings(out) == "32MB,256MB",
          f"{mode}: the administrator's ALTER ROLE value (32MB) holds against PGOPTIONS, got {settings(out)}")
    # SET before the module loads (a placeholder), then every other way once loaded.
    tries = [
        "SET privrisk.memory_limit = '8GB';",
        "SET privrisk.audit_memory_limit = '8GB';",
        LOAD,
        "SET privrisk.memory_limit = '8GB';",
        "SET privrisk.audit_memory_limit = '8GB';",
        "BEGIN; SET LOCAL privrisk.memory_limit = '8GB'; " + SHOW.strip() + " COMMIT;",
        "SELECT set_config('privrisk.memory_limit', '8GB', false);",
        "SELECT set_config('privrisk.audit_memory_limit', '8GB', false);",
        "CREATE FUNCTION pg_temp.raise() RETURNS text LANGUAGE sql SET privrisk.memory_limit = '8GB' "
        "AS $$ SELECT current_setting('privrisk.memory_limit') $$;",
        "ALTER ROLE stranger SET privrisk.memory_limit = '8GB';",
        "ALTER ROLE stranger SET privrisk.audit_memory_limit = '8GB';",
        SHOW,
    ]
    out, err, code = session("\n".join(tries), "stranger")
    denied = err.count("permission denied to set parameter")
    check(settings(out) == "64MB,256MB" and denied >= 8,
          f"{mode}: SET, SET LOCAL, set_config(), a function's SET clause, ALTER ROLE itself SET: "
          f"{denied} refusals, settings {settings(out)}")
    out, err, code = session(LOAD + "ALTER DATABASE strangers SET privrisk.memory_limit = '8GB';\n"
                             "ALTER DATABASE strangers SET privrisk.audit_memory_limit = '8GB';\n",
                             "stranger", database="strangers")
    check(err.count('permission denied to set parameter "privrisk.') == 2,
          f"{mode}: a database's owner cannot ALTER DATABASE ... SET the limits ({err.splitlines()[-1:]})")
    rows, _, _ = session("SELECT count(*) FROM pg_db_role_setting s WHERE array_to_string(setconfig, ',') ~ '8GB';",
                         database="postgres")
    check(rows == "0", f"{mode}: no setting was stored for later sessions ({rows})")
    # A role granted SET on the parameter, and a superuser, keep their rights.
    out, err, code = session(LOAD + SHOW, "tuner", options="-c privrisk.memory_limit=128MB")
    check(settings(out) == "128MB,256MB", f"{mode}: a role granted SET sets it from PGOPTIONS, got {settings(out)}")
    out, err, code = session(LOAD + "SET privrisk.memory_limit = '256MB';\n" + SHOW, "tuner")
    check(settings(out) == "256MB,256MB", f"{mode}: a role granted SET sets it with SET, got {settings(out)}")
    out, err, code = session(LOAD + SHOW, "postgres", options=RAISE)
    check(settings(out) == "8GB,8GB", f"{mode}: a superuser sets both from PGOPTIONS, got {settings(out)}")


def peaks(mode):
    for name, sql in CALLS.items():
        # The stranger raises the limits every way it can, then runs the call.
        options = None if mode == "shared_preload_libraries" else RAISE
        script = ("SET privrisk.memory_limit = '8GB';\nSET privrisk.audit_memory_limit = '8GB';\n" + LOAD +
                  "SET privrisk.memory_limit = '8GB';\nSET work_mem = '2GB';\n" + SERIAL + SHOW +
                  "SELECT growth_kb || '|' || outcome FROM probe.peak($q$" + sql + "$q$);\n")
        started = time.time()
        out, err, code = session(script, "stranger", options=options)
        lines = out.splitlines()
        m = re.fullmatch(r"(-?\d+)\|(.*)", lines[-1]) if lines else None
        if not m:
            check(False, f"{mode}: {name}: no measure ({out} {err})")
            continue
        growth, outcome = int(m.group(1)), m.group(2)
        check(settings(out) == "64MB,256MB" and growth <= 1.5 * BOUND_KB,
              f"{mode}: {name}: peak private memory +{growth // 1024} MB (bound 64MB x 1.5 = 96 MB), "
              f"limits {settings(out)}, {time.time() - started:.1f} s: {outcome[:140]}")
        if outcome != "ok":
            check("privrisk.memory_limit (65536 kB)" in outcome, f"{mode}: {name}: the error names the limit")


def unbounded():
    """The same calls when a superuser raises the limits: far more than the bound, so it is the bound that
    held them above."""
    for name, sql in CALLS.items():
        script = (LOAD + SERIAL + "SET privrisk.memory_limit = '4GB';\nSET privrisk.audit_memory_limit = '4GB';\n" +
                  "SELECT growth_kb || '|' || outcome FROM probe.peak($q$" + sql + "$q$);\n")
        out, err, code = session(script)
        m = re.fullmatch(r"(-?\d+)\|(.*)", out.splitlines()[-1]) if out else None
        growth = int(m.group(1)) if m else 0
        check(m and m.group(2) == "ok" and growth > 2 * BOUND_KB,
              f"superuser, limits raised to 4GB: {name}: +{growth // 1024} MB, more than twice the bound")


def main():
    cluster(f'start_cluster "{DIR}" "port = {PORT}" "shared_buffers = 32MB" "privrisk.audit_memory_limit = 256MB"')
    try:
        admin("CREATE DATABASE bounds", "postgres")
        admin(SETUP, "postgres")
        admin(DATA)
        modes = [("no preload", None), ("session_preload_libraries", "session_preload_libraries"),
                 ("shared_preload_libraries", "shared_preload_libraries")]
        for mode, setting in modes:
            if setting == "session_preload_libraries":
                admin("ALTER SYSTEM SET session_preload_libraries = 'privrisk'; SELECT pg_reload_conf();", "postgres")
            elif setting == "shared_preload_libraries":
                admin("ALTER SYSTEM RESET session_preload_libraries; "
                      "ALTER SYSTEM SET shared_preload_libraries = 'privrisk';", "postgres")
                cluster(f'run_as_owner "$PG_BIN/pg_ctl" -D "{DIR}/data" -l "{DIR}/server.log" -w restart >/dev/null')
            time.sleep(0.2)
            print(f"== {mode}", flush=True)
            attacks(mode)
            peaks(mode)
        unbounded()
    finally:
        cluster(f'CLUSTER_DIR="{DIR}"; stop_cluster')
    print(f"bounds: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
