"""What the release-index tests share (test/release/*.py): psql against the
server under test (the PG* environment scripts/test exports), a database of
their own, and the switch between index paths and full reads.

INDEX_SCANS_LANDED says whether this build has privrisk.release_index_scans
(issue #35's index paths under Custom Scan (PrivriskRelease)). Before it
lands, setting the GUC is tried and its absence ignored, and the assertions
that need an index (EXPLAIN shows `Source Index`) are skipped: the tests then
compare the full read with itself, which still checks every other assertion.
Flip it to True in this one place when the index paths are merged."""
import concurrent.futures
import subprocess
import sys

INDEX_SCANS_LANDED = True

GUC = "privrisk.release_index_scans"


PSQL = ["psql", "-X", "-q", "-A", "-t", "-F", "\t", "-P", "null=<NULL>", "-v", "ON_ERROR_STOP=1"]


class PsqlError(Exception):
    pass


def psql(database, script, check=True):
    """Runs a script in one session; returns its unaligned, tuples-only output
    (tab-separated, NULL printed as <NULL>)."""
    r = subprocess.run(PSQL + ["-d", database], input=script, capture_output=True, text=True)
    if check and r.returncode != 0:
        raise PsqlError(r.stderr.strip() or f"psql exited with {r.returncode}")
    return r.stdout


def psql_sessions(database, scripts):
    """Runs each script in a session of its own, all at once; returns their outputs (as psql())."""
    with concurrent.futures.ThreadPoolExecutor(len(scripts)) as pool:
        runs = [pool.submit(subprocess.run, PSQL + ["-d", database], input=script, capture_output=True, text=True)
                for script in scripts]
        results = [run.result() for run in runs]
    for r in results:
        if r.returncode != 0:
            raise PsqlError(r.stderr.strip() or f"psql exited with {r.returncode}")
    return [r.stdout for r in results]


def fresh_database(name):
    psql("postgres", f"DROP DATABASE IF EXISTS {name};\nCREATE DATABASE {name};\n")
    # The module is loaded at session start, so privrisk.* settings are known (or, before the GUC
    # lands, refused) from the first statement rather than kept as placeholders.
    psql(name, f"CREATE EXTENSION privrisk;\nALTER DATABASE {name} SET session_preload_libraries = 'privrisk';\n")


def set_index_scans(on):
    """SQL that switches the release's index paths on or off for the session. Before the GUC
    lands, an unknown parameter is ignored (the scan then always reads the whole source)."""
    value = "on" if on else "off"
    if INDEX_SCANS_LANDED:
        return f"SET {GUC} = {value};\n"
    return ("DO $$ BEGIN EXECUTE 'SET " + GUC + " = " + value + "'; "
            "EXCEPTION WHEN undefined_object OR invalid_name OR invalid_parameter_value THEN NULL; END $$;\n")


def fail(message):
    print(message, flush=True)
    sys.exit(1)
