// Live results: polls a submission's JSON status and shows the stage it is in, then swaps in the
// server-rendered report. Used by the problem page and the submission page. No framework.
(function () {
  "use strict";

  var STAGES = [
    ["queued", "queued"],
    ["compiling", "compiling"],
    ["testing", "checking"],
    ["benchmarking", "benchmarking"],
    ["done", "done"],
  ];

  function el(tag, attrs, text) {
    var node = document.createElement(tag);
    Object.keys(attrs || {}).forEach(function (k) { node.setAttribute(k, attrs[k]); });
    if (text !== undefined) node.textContent = text;
    return node;
  }

  // The stage line: the steps with the current one marked, then "checking case 3/9 · 2.4 s".
  function renderStage(host, status) {
    host.textContent = "";
    var line = el("div", { class: "stage-line", "data-testid": "stage-line" });
    var steps = el("ol", { class: "stages", "aria-label": "Stages" });
    var current = status.final ? "done" : status.status;
    var seen = false;
    STAGES.forEach(function (pair) {
      if (pair[0] === "benchmarking" && status.mode === "run") return;
      var li = el("li", {}, pair[1]);
      if (pair[0] === current) { li.className = status.final ? "done" : "current"; seen = true; }
      else if (!seen) li.className = "done";
      steps.appendChild(li);
    });
    line.appendChild(steps);
    if (!status.final) line.appendChild(el("span", { class: "pulse", "aria-hidden": "true" }));
    line.appendChild(el("span", { class: "stage-now" }, status.final ? status.verdict_text : status.stage));
    line.appendChild(el("span", { class: "muted" }, status.elapsed_s.toFixed(1) + " s"));
    host.appendChild(line);
  }

  function follow(statusUrl, options) {
    var interval = options.interval || 500;
    var stopped = false;
    function tick() {
      if (stopped) return;
      fetch(statusUrl, { headers: { Accept: "application/json" }, credentials: "same-origin" })
        .then(function (r) {
          if (!r.ok) throw new Error("status " + r.status);
          return r.json();
        })
        .then(function (status) {
          if (options.onUpdate) options.onUpdate(status);
          if (status.final) { stopped = true; if (options.onDone) options.onDone(status); }
          else setTimeout(tick, interval);
        })
        .catch(function () { setTimeout(tick, interval * 4); });
    }
    tick();
    return { stop: function () { stopped = true; } };
  }

  function loadReport(url, host, onLine) {
    return fetch(url, { credentials: "same-origin" })
      .then(function (r) { return r.text(); })
      .then(function (html) {
        host.innerHTML = html; // server-rendered, escaped by Django
        wireLineLinks(host, onLine);
      });
  }

  // Compiler messages link to lines: in the editor when there is one, else to the source listing.
  function wireLineLinks(host, onLine) {
    if (!onLine) return;
    host.querySelectorAll("a.line-link").forEach(function (a) {
      a.addEventListener("click", function (event) {
        event.preventDefault();
        onLine(parseInt(a.getAttribute("data-line"), 10));
      });
    });
  }

  window.GridstrideLive = { renderStage: renderStage, follow: follow, loadReport: loadReport, el: el };
})();
