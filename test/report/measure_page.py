"""Measures a report page as Chromium draws it: a probe script, put into a copy of the page before
its scripts, records when each chart's SVG appears (ms since navigation start, performance.now())
and, once every chart is drawn, each axis's visible tick labels with their boxes on screen
(getBoundingClientRect: rotated labels count by the box they cover). The result is read from the
dumped DOM (saved as NAME.probed.html.dom). Chromium runs without a virtual time budget here, so
that performance.now() is the wall clock."""
import json
import os
import re
import shutil
import subprocess

PROBE = r"""<script>
(function () {
  "use strict";
  var appeared = {};
  function visible(e) {
    for (; e && e.nodeType === 1; e = e.parentNode) {
      var style = getComputedStyle(e);
      if (style.display === "none" || style.visibility === "hidden" || parseFloat(style.opacity) === 0) return false;
      if (e.getAttribute("opacity") !== null && parseFloat(e.getAttribute("opacity")) === 0) return false;
    }
    return true;
  }
  function axes() {
    var out = [];
    document.querySelectorAll("div.chart").forEach(function (chart) {
      chart.querySelectorAll("g.role-axis").forEach(function (axis) {
        var labels = [];
        axis.querySelectorAll("g.role-axis-label text").forEach(function (t) {
          if (!t.textContent || !visible(t)) return;
          var r = t.getBoundingClientRect();
          labels.push({ text: t.textContent, left: r.left, top: r.top, right: r.right, bottom: r.bottom });
        });
        out.push({ chart: chart.id, axis: axis.getAttribute("aria-label") || "", labels: labels });
      });
    });
    return out;
  }
  new MutationObserver(function () {
    document.querySelectorAll("div.chart").forEach(function (chart) {
      if (!(chart.id in appeared) && chart.querySelector("svg")) appeared[chart.id] = performance.now();
    });
    var state = document.body && document.body.getAttribute("data-rendered");
    if (state && !document.getElementById("probe-result")) {
      var s = document.createElement("script");
      s.type = "application/json";
      s.id = "probe-result";
      s.textContent = JSON.stringify({ rendered: state, appeared: appeared, done: performance.now(), axes: axes() });
      document.body.appendChild(s);
    }
  }).observe(document.documentElement, { childList: true, subtree: true, attributes: true });
})();
</script>
"""


def measure(page_file, out, name, chromium):
    """The probe's record of the page drawn in Chromium, or None if it recorded nothing."""
    page = open(page_file, encoding="utf-8").read()
    at = page.index('<script type="application/json" id="report-data">')
    probed = os.path.join(out, name + ".probed.html")
    open(probed, "w", encoding="utf-8").write(page[:at] + PROBE + page[at:])
    profile_dir = os.path.join(out, "chromium-profile-probe-" + name)
    shutil.rmtree(profile_dir, ignore_errors=True)
    d = subprocess.run(chromium + [f"--user-data-dir={profile_dir}", "--window-size=1100,2000", "--dump-dom",
                                   "file://" + probed], capture_output=True, text=True, timeout=180)
    shutil.rmtree(profile_dir, ignore_errors=True)
    open(probed + ".dom", "w", encoding="utf-8").write(d.stdout)
    m = re.search(r'<script type="application/json" id="probe-result">(.*?)</script>', d.stdout, re.S)
    return json.loads(m.group(1)) if m else None


def overlaps(labels, slack=0.5):
    """Pairs of labels whose boxes intersect by more than `slack` px both ways."""
    found = []
    for i, a in enumerate(labels):
        for b in labels[i + 1:]:
            if (min(a["right"], b["right"]) - max(a["left"], b["left"]) > slack
                    and min(a["bottom"], b["bottom"]) - max(a["top"], b["top"]) > slack):
                found.append((a["text"], b["text"]))
    return found
