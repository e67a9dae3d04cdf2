#!/usr/bin/env python3
"""The report, as a reader opens it (docs/report.md): privrisk-report writes the HTML of UCI Adult
(45,222 rows; quasi-identifiers age, marital status, race, sex; sensitive occupation) against the
profile public_use_file; headless Chromium opens it with every network request refused, runs its
scripts, and dumps the DOM and a screenshot. Checked:

- the page loads nothing from elsewhere (no src or href out of the file) and renders offline;
- each chart's marks, counted in the SVG, equal the SQL behind them (classes per size, records at
  risk per size, the (c,k) curves, every lattice node and the one reported, the quasi-identifiers'
  values before and after, the DP ledger's spends);
- the verdict table of the release equals privrisk.check() row for row;
- hostile values, column names, hierarchy labels and titles (hostile()), with
  standard_conforming_strings on and off in the server's session and through PGOPTIONS for the
  client: the page holds its own four scripts only, renders, shows each text as text, and no
  payload runs. Each payload sets document.title to PW<n>; a control page with one payload left
  unescaped shows that Chromium runs it and the test sees it;
- the client against malformed answers (client_answers.py).

    test/report/run_report.py OUT_DIR [--screenshot docs/report.png]

Uses psql and the PG* environment of the server under test, chromium, and build/privrisk-report
(or $PRIVRISK_REPORT_CLIENT)."""
import html as html_module
import json
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from client_answers import check_client_answers  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
DB = "privrisk_report_test"
CHROMIUM = ["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--proxy-server=127.0.0.1:9", "--proxy-bypass-list=<-loopback>", "--virtual-time-budget=20000"]
failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def psql(sql, database=DB):
    r = subprocess.run(["psql", "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", "-d", database], input=sql,
                       capture_output=True, text=True, cwd=ROOT)
    if r.returncode != 0:
        sys.exit(f"psql failed:\n{r.stderr}")
    return r.stdout.strip()


def setup():
    psql(f"DROP DATABASE IF EXISTS {DB}; CREATE DATABASE {DB};", "postgres")
    psql(r"""
CREATE EXTENSION privrisk;
\i scripts/adult-uci.sql
\set age `cat ../shared/data/adult/adult_hierarchy_age.csv`
\set marital `cat ../shared/data/adult/adult_hierarchy_marital-status.csv`
\set race `cat ../shared/data/adult/adult_hierarchy_race.csv`
\set sex `cat ../shared/data/adult/adult_hierarchy_sex.csv`
SELECT privrisk.load_hierarchy('age', :'age'), privrisk.load_hierarchy('marital', :'marital'),
       privrisk.load_hierarchy('race', :'race'), privrisk.load_hierarchy('sex', :'sex');
SECURITY LABEL FOR privrisk ON COLUMN adult.id IS 'identifier';
SECURITY LABEL FOR privrisk ON COLUMN adult.age IS 'quasi_identifier(age)';
SECURITY LABEL FOR privrisk ON COLUMN adult.marital_status IS 'quasi_identifier(marital)';
SECURITY LABEL FOR privrisk ON COLUMN adult.race IS 'quasi_identifier(race)';
SECURITY LABEL FOR privrisk ON COLUMN adult.sex IS 'quasi_identifier(sex)';
SECURITY LABEL FOR privrisk ON COLUMN adult.occupation IS 'sensitive';
SELECT privrisk.set_budget('adult', 2, 1e-4);
SELECT count(*) FROM privrisk.dp_release('adult', epsilon => 0.5, delta => 1e-6, levels => ARRAY[2, 1, 1, 1], seed => 1)
    AS r(age text, marital_status text, race text, sex text);
SELECT count(*) FROM privrisk.dp_release('adult', epsilon => 0.25, delta => 1e-6, levels => ARRAY[3, 1, 1, 1], seed => 2)
    AS r(age text, marital_status text, race text, sex text);
""")


# Each payload, if it ran, would set document.title to PW<n> (the page's own title never starts so).
VALUES = ["</script><script>document.title='PW3'</script>", "\"><img src=x onerror=document.title='PW4'>",
          "\\'-document.title='PW5'-\\'", "<!--<script>", "a\u2028b\u2029</script><svg onload=document.title='PW6'>"]
COLUMNS = ["</script><script>document.title='PW7'</script>", "\"><img src=x onerror=document.title='PW8'>", "<!--<script>"]
LABEL = "<img src=x onerror=document.title='PW9'>"
TITLE = "</title><script>document.title='PW2'</script>\\'<!--"
HOSTILE_DB = "privrisk_report_hostile"


def literal(text):
    """A dollar-quoted SQL literal: the same under either standard_conforming_strings."""
    assert "$q$" not in text
    return f"$q${text}$q$"


def ident(name):
    return '"' + name.replace('"', '""') + '"'


def render(page_file, out, name):
    """The DOM after Chromium ran the page's scripts, offline."""
    profile_dir = os.path.join(out, "chromium-profile-" + name)
    shutil.rmtree(profile_dir, ignore_errors=True)
    d = subprocess.run(CHROMIUM + [f"--user-data-dir={profile_dir}", "--dump-dom", "file://" + page_file],
                       capture_output=True, text=True, timeout=120)
    shutil.rmtree(profile_dir, ignore_errors=True)
    open(page_file + ".dom.html", "w", encoding="utf-8").write(d.stdout)
    return d.stdout


def ran(dom):
    return re.findall(r"<title>(PW\d+)</title>", dom)


def hostile(out, client):
    psql(f"DROP DATABASE IF EXISTS {HOSTILE_DB}; CREATE DATABASE {HOSTILE_DB};", "postgres")
    c1, c2, c3 = (ident(c) for c in COLUMNS)
    values = ", ".join(literal(v) for v in VALUES)
    psql(f"""
CREATE EXTENSION privrisk;
CREATE TABLE hostile (id integer, {c1} text, {c2} text, {c3} text, diagnosis text);
INSERT INTO hostile SELECT i, (ARRAY[{values}])[1 + i % 5], (ARRAY['x', 'y'])[1 + i % 2],
                           (ARRAY[{values}])[1 + (i / 5) % 5], (ARRAY['flu', 'cold'])[1 + i / 3 % 2]
FROM generate_series(1, 300) AS i;
SELECT privrisk.load_hierarchy('hostile_h', {literal("x;" + LABEL + ";*" + chr(10) + "y;" + LABEL + ";*")});
SECURITY LABEL FOR privrisk ON COLUMN hostile.{c1} IS 'quasi_identifier';
SECURITY LABEL FOR privrisk ON COLUMN hostile.{c2} IS 'quasi_identifier(hostile_h)';
SECURITY LABEL FOR privrisk ON COLUMN hostile.{c3} IS 'quasi_identifier';
SECURITY LABEL FOR privrisk ON COLUMN hostile.diagnosis IS 'sensitive';
SELECT privrisk.create_profile('hostile_board', '{{"k": 2}}');
""", HOSTILE_DB)
    pages = {}
    # 1. The server's session with standard_conforming_strings off (and other settings changed).
    pages["session_scs_off"] = os.path.join(out, "hostile-session.html")
    psql(f"""SET standard_conforming_strings = off;
SET extra_float_digits = -15;
SET "DateStyle" = 'SQL, DMY';
\\o {pages["session_scs_off"]}
SELECT privrisk.report('hostile', 'hostile_board', levels => ARRAY[0, 1, 0], title => {literal(TITLE)});
""", HOSTILE_DB)
    # 2. and 3. The client, with standard_conforming_strings off through PGOPTIONS, and on.
    for name, options in (("client_scs_off", "-c standard_conforming_strings=off -c extra_float_digits=-15"),
                          ("client_scs_on", "-c standard_conforming_strings=on")):
        pages[name] = os.path.join(out, f"hostile-{name}.html")
        r = subprocess.run([client, "--source", "hostile", "--profile", "hostile_board", "--levels", "0,1,0",
                            "--title", TITLE, "--output", pages[name]], capture_output=True, text=True,
                           env=dict(os.environ, PGDATABASE=HOSTILE_DB, PGOPTIONS=options))
        check(r.returncode == 0, f"hostile {name}: privrisk-report writes the page ({r.stdout.strip() or r.stderr.strip()})")
    for name, page_file in pages.items():
        page = open(page_file, encoding="utf-8").read()
        check(len(re.findall(r"<script", page, re.I)) == 4 and len(re.findall(r"</script", page, re.I)) == 4
              and "<!--" not in page and "<img" not in page and "<svg" not in page,
              f"hostile {name}: the page's only elements from data are text ({len(re.findall(r'<script', page, re.I))} scripts)")
        dom = render(page_file, out, name)
        check('data-rendered="true"' in dom, f"hostile {name}: every chart rendered")
        check(not ran(dom), f"hostile {name}: no payload ran (titles set by payloads: {ran(dom)})")
        h1 = re.search(r"<h1>(.*?)</h1>", dom, re.S)
        check(bool(h1) and html_module.unescape(h1.group(1)) == TITLE,
              f"hostile {name}: the title shows as text ({h1.group(1) if h1 else None!r})")
        owner = re.search(r'<p class="meta" id="profile">(.*?)</p>', dom)
        check(bool(owner) and html_module.unescape(owner.group(1)).startswith('Risk profile "hostile_board", owned by role '),
              f"hostile {name}: the page names the profile and its owner ({owner.group(1) if owner else None!r})")
        island = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page, re.S)
        try:
            data = json.loads(island.group(1)) if island else {}
        except ValueError:
            data = {}  # cut short by a value's "</script>"
        check(data.get("quasi_identifiers") == COLUMNS, f"hostile {name}: the column names read back exactly")
        shown = {d["value"] for d in data.get("distributions", []) if d["column"] == COLUMNS[0]}
        check(shown == set(VALUES), f"hostile {name}: the values read back exactly")
        labels = {d["value"] for d in data.get("distributions", []) if d["column"] == COLUMNS[1] and d["release"] == "release"}
        check(labels == {LABEL}, f"hostile {name}: the hierarchy label reads back exactly ({labels})")
    # Controls: one payload left unescaped runs, and the test sees it.
    page = open(pages["client_scs_on"], encoding="utf-8").read()
    for n, control in ((0, page.replace('<p class="meta" id="profile">', '<p class="meta" id="profile"><img src=x onerror="document.title=\'PW0\'">', 1)),
                       (1, page.replace('id="report-data">', 'id="report-data"></script><script>document.title=\'PW1\'</script><script type="application/json">', 1))):
        control_file = os.path.join(out, f"control-{n}.html")
        open(control_file, "w", encoding="utf-8").write(control)
        check(ran(render(control_file, out, f"control-{n}")) == [f"PW{n}"], f"control {n}: an unescaped payload runs and is seen")
    psql(f"DROP DATABASE IF EXISTS {HOSTILE_DB} WITH (FORCE)", "postgres")


def chart(dom, chart_id):
    """The part of the DOM inside the chart's container."""
    start = dom.find(f'<div class="chart" id="{chart_id}"')
    if start < 0:
        return ""
    end = dom.find('<div class="chart"', start + 1)
    end = dom.find("<h2", start) if end < 0 else min(end, dom.find("<h2", start) if dom.find("<h2", start) > 0 else end)
    return dom[start:end if end > 0 else len(dom)]


def marks(part, kind, name):
    """The number of items of the mark group named `name` (a Vega SVG <g> of <path>s)."""
    total = 0
    for m in re.finditer(rf'<g class="mark-{kind} role-mark {re.escape(name)}"[^>]*>(.*?)</g>', part, re.S):
        total += m.group(1).count("<path")
    return total


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else "/tmp/privrisk-report-test"
    screenshot_copy = sys.argv[sys.argv.index("--screenshot") + 1] if "--screenshot" in sys.argv else None
    os.makedirs(out, exist_ok=True)
    setup()
    html = os.path.join(out, "adult.html")
    client = os.environ.get("PRIVRISK_REPORT_CLIENT", os.path.join(ROOT, "build", "privrisk-report"))
    r = subprocess.run([client, "--source", "adult", "--profile",
                        "public_use_file", "--title", "UCI Adult against public_use_file", "--output", html],
                       capture_output=True, text=True, env=dict(os.environ, PGDATABASE=DB))
    check(r.returncode == 0, f"privrisk-report writes the report ({r.stdout.strip() or r.stderr.strip()})")
    page = open(html, encoding="utf-8").read()
    external = re.findall(r'<(?:script|link|img|iframe)[^>]+(?:src|href)=["\']?[a-z]+:', page, re.I)
    check(not external, f"the page loads nothing from elsewhere ({len(external)} external references)")

    profile_dir = os.path.join(out, "chromium-profile")
    shutil.rmtree(profile_dir, ignore_errors=True)
    d = subprocess.run(CHROMIUM + [f"--user-data-dir={profile_dir}", "--dump-dom", "file://" + html],
                       capture_output=True, text=True, timeout=120)
    dom = d.stdout
    open(os.path.join(out, "adult.dom.html"), "w", encoding="utf-8").write(dom)
    check('data-rendered="true"' in dom, "every chart rendered, offline (network refused)")

    # The release the report chose, as the search finds it under the profile.
    levels = psql("SELECT array_to_string(ARRAY(SELECT jsonb_array_elements_text(r->'result'->'node')), ',') "
                  "FROM privrisk.search('adult', profile => 'public_use_file') AS r")
    lv = f"ARRAY[{levels}]"
    classes = f"privrisk.classes('adult', levels => {lv})"
    sizes = int(psql(f"SELECT count(DISTINCT privrisk.hist_size(hist)) FROM {classes}"))
    check(marks(chart(dom, "class_sizes"), "rect", "marks") == sizes,
          f"class sizes: {marks(chart(dom, 'class_sizes'), 'rect', 'marks')} bars, {sizes} distinct sizes")
    check(marks(chart(dom, "records_at_risk"), "symbol", "layer_1_marks") == sizes,
          f"records at risk: a point per class size ({sizes})")
    ck = int(psql(f"SELECT cardinality(privrisk.ck_disclosure_curve(hist, 10)) + "
                  f"cardinality(privrisk.neg_disclosure_curve(hist, 10)) FROM {classes}"))
    check(marks(chart(dom, "ck_curves"), "symbol", "layer_1_marks") == ck,
          f"(c,k): {marks(chart(dom, 'ck_curves'), 'symbol', 'layer_1_marks')} points, {ck} curve values")
    nodes = int(psql("SELECT count(*) FROM privrisk.lattice('adult')"))
    frontier = chart(dom, "frontier")
    check(marks(frontier, "symbol", "layer_0_marks") == nodes,
          f"lattice: {marks(frontier, 'symbol', 'layer_0_marks')} points, {nodes} nodes")
    check(marks(frontier, "symbol", "layer_2_marks") == 1, "lattice: the reported node ringed once")
    values = int(psql(f"""
        SELECT sum(least(n, 25)) FROM (
            SELECT (SELECT count(*) FROM privrisk.classes('adult', ARRAY[q], ARRAY[h], ARRAY[l], NULL)) AS n
              FROM unnest(ARRAY['age', 'marital_status', 'race', 'sex'], ARRAY['age', 'marital', 'race', 'sex'], {lv}) AS u(q, h, l)
            UNION ALL
            SELECT (SELECT count(*) FROM privrisk.classes('adult', ARRAY[q], ARRAY[h], ARRAY[0], NULL))
              FROM unnest(ARRAY['age', 'marital_status', 'race', 'sex'], ARRAY['age', 'marital', 'race', 'sex']) AS u(q, h)) AS c"""))
    bars = sum(marks(chart(dom, "distributions"), "rect", f"concat_{i}_concat_{j}_marks") for i in range(4) for j in range(2))
    check(bars == values, f"quasi-identifiers before and after: {bars} bars, {values} values (at most 25 each)")
    spends = int(psql("SELECT count(*) FROM privrisk.budget_ledger WHERE relation = 'adult'::regclass"))
    check(marks(chart(dom, "budget"), "symbol", "layer_1_marks") == spends, f"DP budget: a point per spend ({spends})")

    # The release's verdict table row for row against check().
    expected = psql(f"SELECT string_agg(measure || '=' || value || ':' || CASE WHEN passed THEN 'pass' ELSE 'fail' END, ' ') "
                    f"FROM privrisk.check('adult', 'public_use_file', levels => {lv})")
    first_table = dom[dom.find('<table class="checks">'):dom.find("</table>")]
    rows = re.findall(r'<tr class="(passed|failed)" data-measure="([^"]+)" data-value="([^"]*)">', first_table)
    shown = " ".join(f"{m}={v}:{'pass' if c == 'passed' else 'fail'}" for c, m, v in rows)
    check(shown == expected, f"verdict table = check(): {shown!r} vs {expected!r}")
    first_verdict = re.search(r'<div class="verdict (pass|fail)">([^<]*)</div>', dom)
    check(bool(first_verdict) and first_verdict.groups() == ("pass", "Publishable: every threshold is met"),
          f"the release's verdict says publishable ({first_verdict.groups() if first_verdict else None})")
    source_verdict = [(c, html_module.unescape(t)) for c, t in re.findall(r'<div class="verdict (pass|fail)">([^<]*)</div>', dom)[1:]]
    expected_source = psql("SELECT r->'verdict'->>'summary' FROM privrisk.audit('adult', profile => 'public_use_file') AS r")
    check(source_verdict == [("fail", expected_source[0].upper() + expected_source[1:])],
          f"the source's verdict is audit()'s ({source_verdict})")

    png = os.path.join(out, "adult.png")
    shutil.rmtree(profile_dir, ignore_errors=True)
    subprocess.run(CHROMIUM + [f"--user-data-dir={profile_dir}", "--window-size=1100,4300", f"--screenshot={png}",
                               "file://" + html], capture_output=True, timeout=120)
    check(os.path.exists(png) and os.path.getsize(png) > 50_000, f"screenshot taken ({png})")
    if screenshot_copy and os.path.exists(png):
        shutil.copyfile(png, os.path.join(ROOT, screenshot_copy))
    psql(f"DROP DATABASE IF EXISTS {DB} WITH (FORCE)", "postgres")
    hostile(out, client)
    check_client_answers(client, check)
    print(f"report: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
