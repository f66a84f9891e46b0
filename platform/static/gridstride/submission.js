// The live submission page: follow the status until judging ends, then swap in the report.
(function () {
  "use strict";
  var live = window.GridstrideLive;
  var section = document.getElementById("live");
  var url = section && section.getAttribute("data-status-url");
  if (!url) return;
  var stageHost = document.getElementById("stage-host");
  var reportHost = document.getElementById("report-host");
  live.follow(url, {
    onUpdate: function (status) { live.renderStage(stageHost, status); },
    onDone: function (status) {
      live.loadReport(status.report_url, reportHost, function (line) {
        var target = document.getElementById("L" + line);
        if (target) { window.location.hash = "L" + line; target.scrollIntoView({ block: "center" }); }
      });
    },
  });
})();
