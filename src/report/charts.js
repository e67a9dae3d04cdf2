// Draws the report's charts from the data privrisk.report() embedded in the
// page, with Vega-Lite compiled to Vega and rendered as SVG (every mark is an
// element of the page, so a test can count them). Nothing is fetched.
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var width = 760;
  var pending = [];

  function draw(id, spec) {
    var element = document.getElementById(id);
    spec.$schema = "https://vega.github.io/schema/vega-lite/v5.json";
    spec.config = { font: "system-ui, sans-serif", axis: { labelFontSize: 11, titleFontSize: 12 } };
    var view = new vega.View(vega.parse(vegaLite.compile(spec).spec), { renderer: "svg", container: element, hover: false });
    pending.push(view.runAsync());
  }

  function note(id, text) {
    var p = document.createElement("p");
    p.className = "note";
    p.textContent = text;
    document.getElementById(id).appendChild(p);
  }

  // Counts are integers: no tick between two of them, none written with a fraction.
  var integerAxis = { tickMinStep: 1, format: "d", labelOverlap: true };

  function rule(value, axis, color) {
    var encoding = {};
    encoding[axis] = { datum: value };
    return { mark: { type: "rule", color: color, strokeDash: [6, 4] }, encoding: encoding };
  }

  // 1. Class sizes: classes per size.
  if (data.class_sizes.length) {
    draw("class_sizes", {
      width: width, height: 220, data: { values: data.class_sizes },
      mark: { type: "bar", color: "#4c78a8" },
      encoding: {
        x: { field: "size", type: "ordinal", title: "class size (rows)",
             axis: { labelOverlap: "parity", labelAngle: 0, labelSeparation: 4 } },
        y: { field: "classes", type: "quantitative", title: "classes", axis: integerAxis },
        tooltip: [{ field: "size" }, { field: "classes" }]
      }
    });
  } else note("class_sizes", "The release has no rows.");

  // 2. Records at risk against the threshold (a step down at each class size's risk; θ = 1/size
  //    spans orders of magnitude, hence the log scale).
  if (data.records_at_risk.length) {
    var risk = [
      { mark: { type: "line", interpolate: "step-after", color: "#e45756" },
        encoding: { x: { field: "threshold", type: "quantitative", title: "risk threshold θ (log scale)",
                         scale: { type: "log", domainMax: 1 }, axis: { format: "~g", labelOverlap: true, labelSeparation: 4 } },
                    y: { field: "share", type: "quantitative", title: "share of rows with risk > θ", axis: { format: "%" },
                         scale: { domain: [0, 1] } } } },
      { mark: { type: "point", filled: true, color: "#e45756" },
        encoding: { x: { field: "threshold", type: "quantitative" }, y: { field: "share", type: "quantitative" },
                    tooltip: [{ field: "threshold" }, { field: "share", format: ".2%" }] } }
    ];
    if (data.risk_threshold !== null) risk.push(rule(data.risk_threshold, "x", "#333"));
    draw("records_at_risk", { width: width, height: 220, data: { values: data.records_at_risk }, layer: risk });
  } else note("records_at_risk", "The release has no rows.");

  // 3. (c,k): disclosure against k, implications and negated atoms.
  if (data.ck.length) {
    var ck = [
      { mark: { type: "line" },
        encoding: { x: { field: "k", type: "quantitative", title: "facts the attacker knows (k)", axis: integerAxis },
                    y: { field: "disclosure", type: "quantitative", title: "maximum disclosure", scale: { domain: [0, 1] } },
                    color: { field: "facts", type: "nominal", title: "facts as" } } },
      { mark: { type: "point", filled: true },
        encoding: { x: { field: "k", type: "quantitative" }, y: { field: "disclosure", type: "quantitative" },
                    color: { field: "facts", type: "nominal" },
                    tooltip: [{ field: "facts" }, { field: "k" }, { field: "disclosure", format: ".4f" }] } }
    ];
    if (data.ck_c !== null) ck.push(rule(data.ck_c, "y", "#333"));
    draw("ck_curves", { width: width, height: 240, data: { values: data.ck }, layer: ck });
  } else note("ck_curves", data.ck_note || "No sensitive column: no (c,k) disclosure.");

  // 4. The lattice: information loss against the highest risk. Every node as a point while they are
  //    few (data.lattice), else the nodes counted per cell of a grid (data.lattice_bins); always the
  //    frontier (a line through its points) and the reported node (ringed). Each layer has its data.
  if (data.lattice_nodes) {
    var x = { field: "loss", type: "quantitative", title: "information loss", scale: { domain: [0, 1] },
              axis: { labelOverlap: true } };
    var y = { field: "risk", type: "quantitative", title: "highest re-identification risk", scale: { domain: [0, 1] },
              axis: { labelOverlap: true } };
    var nodeTip = [{ field: "node" }, { field: "loss", format: ".4f" }, { field: "risk", format: ".4f" }, { field: "qualifies" }];
    var base = data.lattice ? {
      data: { values: data.lattice },
      mark: { type: "point", filled: true, opacity: 0.75, size: 40 },
      encoding: { x: x, y: y, tooltip: nodeTip,
                  color: { field: "qualifies", type: "nominal", title: "meets the profile",
                           scale: { domain: [true, false], range: ["#1e8e3e", "#bbbbbb"] } } }
    } : {
      data: { values: data.lattice_bins || [] },
      mark: { type: "rect", strokeWidth: 1.5 },
      encoding: {
        x: { field: "loss_lo", type: "quantitative", title: "information loss", scale: { domain: [0, 1] },
             axis: { labelOverlap: true } },
        x2: { field: "loss_hi" },
        y: { field: "risk_lo", type: "quantitative", title: "highest re-identification risk", scale: { domain: [0, 1] },
             axis: { labelOverlap: true } },
        y2: { field: "risk_hi" },
        color: { field: "nodes", type: "quantitative", title: "nodes in the cell",
                 scale: { type: "log", scheme: "greys" }, legend: { format: "d" } },
        stroke: { condition: { test: "datum.qualifying > 0", value: "#1e8e3e" }, value: null },
        tooltip: [{ field: "nodes", title: "nodes" }, { field: "qualifying", title: "meeting the profile" },
                  { field: "loss_lo", title: "loss from" }, { field: "risk_lo", title: "risk from" }]
      }
    };
    draw("frontier", {
      width: width, height: 320,
      layer: [
        base,
        { data: { values: data.lattice_frontier }, mark: { type: "line", color: "#4c78a8", strokeWidth: 1.5 },
          encoding: { x: x, y: y, order: { field: "loss", type: "quantitative" } } },
        { data: { values: data.lattice_chosen }, mark: { type: "point", filled: false, size: 320, strokeWidth: 2.5, color: "#000" },
          encoding: { x: x, y: y, tooltip: nodeTip } },
        { data: { values: data.lattice_frontier }, mark: { type: "point", filled: true, size: 50, color: "#4c78a8" },
          encoding: { x: x, y: y, tooltip: nodeTip } }
      ],
      resolve: { scale: { color: "independent" } }
    });
    note("frontier", data.lattice ? data.lattice_nodes + " nodes, " + data.lattice_frontier.length + " on the frontier."
         : data.lattice_nodes + " nodes in " + data.lattice_bins.length + " cells, " + data.lattice_frontier.length +
           " on the frontier.");
  } else note("frontier", data.lattice_note || "No lattice.");

  // 5. Each quasi-identifier's values in the source and in the release. Each plot gets its rows,
  //    split here: a column's name or a value is data, never part of a filter Vega would parse.
  if (data.distributions.length) {
    var columns = [];
    data.distributions.forEach(function (d) { if (columns.indexOf(d.column) < 0) columns.push(d.column); });
    draw("distributions", {
      vconcat: columns.map(function (column) {
        return {
          title: { text: String(column) },
          hconcat: ["source", "release"].map(function (release) {
            var rows = data.distributions.filter(function (d) { return d.column === column && d.release === release; });
            return {
              title: { text: release + (rows.length ? " — " + rows[0].level : ""), fontSize: 11, fontWeight: "normal" },
              width: width / 2 - 170, height: { step: 14 },
              data: { values: rows },
              mark: { type: "bar", color: release === "source" ? "#9ecae9" : "#4c78a8" },
              encoding: {
                y: { field: "value", type: "nominal", title: null, sort: { field: "order", op: "min" },
                     axis: { labelLimit: 120 } },
                x: { field: "rows", type: "quantitative", title: "rows",
                     axis: { tickMinStep: 1, format: "~s", labelOverlap: true, labelSeparation: 6, tickCount: 4 } },
                tooltip: [{ field: "value" }, { field: "rows" }]
              }
            };
          })
        };
      })
    });
  } else note("distributions", "No quasi-identifier.");

  // 6. The DP budget spent over time.
  if (data.budget.length) {
    var budget = [
      { mark: { type: "line", interpolate: "step-after", color: "#b279a2" },
        encoding: { x: { field: "spent_at", type: "temporal", title: "time", axis: { labelOverlap: true } },
                    y: { field: "cumulative", type: "quantitative", title: "ε spent" } } },
      { mark: { type: "point", filled: true, color: "#b279a2" },
        encoding: { x: { field: "spent_at", type: "temporal" }, y: { field: "cumulative", type: "quantitative" },
                    tooltip: [{ field: "spent_at", type: "temporal" }, { field: "epsilon" }, { field: "mechanism" }] } }
    ];
    if (data.budget_epsilon !== null) budget.push(rule(data.budget_epsilon, "y", "#d93025"));
    draw("budget", { width: width, height: 200, data: { values: data.budget }, layer: budget });
  } else note("budget", "No differentially private release of this table is recorded.");

  Promise.all(pending).then(function () { document.body.setAttribute("data-rendered", "true"); },
                            function (e) { document.body.setAttribute("data-rendered", "error: " + e); });
})();
