"""What the Python tests that run clusters of their own share: a check that
prints its outcome and records a failure, and scripts/lib.sh's cluster
commands run against the server tree scripts/test uses (PRIVRISK_PG_ROOT)."""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    if not ok:
        failures.append(what)


def cluster(command):
    script = f'source scripts/lib.sh; use_private_server; {command}'
    r = subprocess.run(["bash", "-c", script], cwd=ROOT, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"{command} failed:\n{r.stdout}\n{r.stderr}")
